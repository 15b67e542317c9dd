// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @atanh(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Atanh"(%x) {onnx_node_name = "atanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @atanh(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ATANH:.*]] = math.atanh %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[ATANH]] : f32
