// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// RBF: squared distances to the support vectors (a reduction), exp(-gamma d)
// pointwise, then the coefficients' weighted sum plus rho.

// CHECK-LABEL: func.func @svm_regressor(
// CHECK-SAME:      %[[X:.*]]: memref<2x2xf32>, %[[Y:.*]]: memref<2x1xf32>)
// CHECK:         %[[SV:.*]] = memref.get_global @svr_support_vectors : memref<2x2xf32>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[SV]] : memref<2x2xf32>, memref<2x2xf32>) outs(%[[K:.*]] : memref<2x2xf32>)
// CHECK:           %[[D:.*]] = arith.subf
// CHECK-NEXT:      %[[D2:.*]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[K]] : memref<2x2xf32>) outs(%[[K]] : memref<2x2xf32>)
// CHECK:           %[[G:.*]] = arith.mulf
// CHECK-NEXT:      math.exp %[[G]] : f32
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[K]], %{{.*}} : memref<2x2xf32>, memref<1x2xf32>) outs(%[[Y]] : memref<2x1xf32>)

func.func @svm_regressor(%x: tensor<2x2xf32>) -> tensor<2x1xf32> {
  %y = "onnx_ml.SVMRegressor"(%x) <{kernel_type = "RBF", kernel_params = array<f32: 0.5, 0.0, 3.0>, n_supports = 2 : i64, support_vectors = array<f32: 0.0, 1.0, 1.0, -1.0>, coefficients = array<f32: 1.0, -0.5>, rho = array<f32: 0.1>}> {onnx_node_name = "svr"} : (tensor<2x2xf32>) -> tensor<2x1xf32>
  func.return %y : tensor<2x1xf32>
}
