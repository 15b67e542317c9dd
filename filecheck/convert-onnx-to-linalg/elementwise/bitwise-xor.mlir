// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @bitwise_xor(%a: tensor<2x3xi32>, %b: tensor<3xi32>) -> tensor<2x3xi32> {
  %r = "onnx.BitwiseXor"(%a, %b) {onnx_node_name = "bitwise_xor"} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @bitwise_xor(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: i32, %[[Y:[^:]*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[XORI:.*]] = arith.xori %[[X]], %[[Y]] : i32
// CHECK-NEXT:      linalg.yield %[[XORI]] : i32
