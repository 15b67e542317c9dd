// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @mish(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Mish"(%x) {onnx_node_name = "mish"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @mish(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[MAXIMUMF:.*]] = arith.maximumf %[[X]], %[[C]] : f32
// CHECK-NEXT:      %[[ABSF:.*]] = math.absf %[[X]] : f32
// CHECK-NEXT:      %[[NEGF:.*]] = arith.negf %[[ABSF]] : f32
// CHECK-NEXT:      %[[EXP:.*]] = math.exp %[[NEGF]] : f32
// CHECK-NEXT:      %[[LOG1P:.*]] = math.log1p %[[EXP]] : f32
// CHECK-NEXT:      %[[ADDF:.*]] = arith.addf %[[MAXIMUMF]], %[[LOG1P]] : f32
// CHECK-NEXT:      %[[TANH:.*]] = math.tanh %[[ADDF]] : f32
// CHECK-NEXT:      %[[MULF:.*]] = arith.mulf %[[X]], %[[TANH]] : f32
// CHECK-NEXT:      linalg.yield %[[MULF]] : f32
