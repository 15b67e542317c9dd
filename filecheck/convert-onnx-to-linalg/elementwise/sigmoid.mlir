// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @sigmoid(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Sigmoid"(%x) {onnx_node_name = "sigmoid"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @sigmoid(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = onnxc.sigmoid %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
