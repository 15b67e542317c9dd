// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @bitwise_not(%x: tensor<2x3xui8>) -> tensor<2x3xui8> {
  %r = "onnx.BitwiseNot"(%x) {onnx_node_name = "bitwise_not"} : (tensor<2x3xui8>) -> tensor<2x3xui8>
  func.return %r : tensor<2x3xui8>
}

// CHECK-LABEL: func.func @bitwise_not(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: ui8, %{{.*}}: ui8):
// CHECK-NEXT:      %[[C:.*]] = arith.constant -1 : i8
// CHECK-NEXT:      %[[BITCAST:.*]] = arith.bitcast %[[C]] : i8 to ui8
// CHECK-NEXT:      %[[XORI:.*]] = arith.xori %[[X]], %[[BITCAST]] : ui8
// CHECK-NEXT:      linalg.yield %[[XORI]] : ui8
