// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @bitwise_and(%a: tensor<2x3xi32>, %b: tensor<3xi32>) -> tensor<2x3xi32> {
  %r = "onnx.BitwiseAnd"(%a, %b) {onnx_node_name = "bitwise_and"} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @bitwise_and(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: i32, %[[Y:[^:]*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[ANDI:.*]] = arith.andi %[[X]], %[[Y]] : i32
// CHECK-NEXT:      linalg.yield %[[ANDI]] : i32
