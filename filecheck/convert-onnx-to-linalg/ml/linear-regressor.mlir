// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Double X is converted to float before the product, as onnxruntime does.

// CHECK-LABEL: func.func @linear_regressor(
// CHECK-SAME:      %[[X:.*]]: memref<2x3xf64>, %[[Y:.*]]: memref<2x1xf32>)
// CHECK:         %[[B:.*]] = memref.get_global @linear_intercepts : memref<1xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[B]] : memref<1xf32>) outs(%[[Y]] : memref<2x1xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %{{.*}} : memref<2x3xf64>, memref<1x3xf32>) outs(%[[Y]] : memref<2x1xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: f64, %[[W:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[F:.*]] = arith.truncf %[[A]] : f64 to f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[F]], %[[W]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32

func.func @linear_regressor(%x: tensor<2x3xf64>) -> tensor<2x1xf32> {
  %y = "onnx_ml.LinearRegressor"(%x) <{coefficients = array<f32: 1.0, 2.0, 3.0>, intercepts = array<f32: 0.5>}> {onnx_node_name = "linear"} : (tensor<2x3xf64>) -> tensor<2x1xf32>
  func.return %y : tensor<2x1xf32>
}
