// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @min(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Min"(%a, %b) {onnx_node_name = "min"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @min(
// CHECK-SAME:      %[[A:[^:]*]]: memref<2x3xf32>, %[[B:[^:]*]]: memref<3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<2x3xf32>, memref<3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = arith.minimumf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
