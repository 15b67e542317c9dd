// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @not(%x: tensor<2x3xi1>) -> tensor<2x3xi1> {
  %r = "onnx.Not"(%x) {onnx_node_name = "not"} : (tensor<2x3xi1>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @not(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: i1, %{{.*}}: i1):
// CHECK-NEXT:      %[[C:.*]] = arith.constant true
// CHECK-NEXT:      %[[XORI:.*]] = arith.xori %[[X]], %[[C]] : i1
// CHECK-NEXT:      linalg.yield %[[XORI]] : i1
