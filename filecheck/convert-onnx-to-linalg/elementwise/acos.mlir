// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @acos(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Acos"(%x) {onnx_node_name = "acos"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @acos(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ACOS:.*]] = math.acos %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[ACOS]] : f32
