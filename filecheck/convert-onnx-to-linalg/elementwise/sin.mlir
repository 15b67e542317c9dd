// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @sin(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Sin"(%x) {onnx_node_name = "sin"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @sin(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[SIN:.*]] = math.sin %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[SIN]] : f32
