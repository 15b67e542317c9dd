// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @or(%a: tensor<2x3xi1>, %b: tensor<3xi1>) -> tensor<2x3xi1> {
  %r = "onnx.Or"(%a, %b) {onnx_node_name = "or"} : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @or(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: i1, %[[Y:[^:]*]]: i1, %{{.*}}: i1):
// CHECK-NEXT:      %[[ORI:.*]] = arith.ori %[[X]], %[[Y]] : i1
// CHECK-NEXT:      linalg.yield %[[ORI]] : i1
