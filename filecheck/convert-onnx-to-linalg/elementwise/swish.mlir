// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @swish(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Swish"(%x) <{alpha = 5.000000e-01 : f32}> {onnx_node_name = "swish"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @swish(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[MULF:.*]] = arith.mulf %[[C]], %[[X]] : f32
// CHECK-NEXT:      %[[DIVF:.*]] = onnxc.sigmoid %[[MULF]] : f32
// CHECK-NEXT:      %[[MULF2:.*]] = arith.mulf %[[X]], %[[DIVF]] : f32
// CHECK-NEXT:      linalg.yield %[[MULF2]] : f32
