// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @softsign(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Softsign"(%x) {onnx_node_name = "softsign"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @softsign(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[ABSF:.*]] = math.absf %[[X]] : f32
// CHECK-NEXT:      %[[ADDF:.*]] = arith.addf %[[C]], %[[ABSF]] : f32
// CHECK-NEXT:      %[[DIVF:.*]] = arith.divf %[[X]], %[[ADDF]] : f32
// CHECK-NEXT:      linalg.yield %[[DIVF]] : f32
