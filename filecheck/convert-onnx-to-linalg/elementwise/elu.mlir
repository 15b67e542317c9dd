// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @elu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Elu"(%x) <{alpha = 5.000000e-01 : f32}> {onnx_node_name = "elu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @elu(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[CMPF:.*]] = arith.cmpf olt, %[[X]], %[[C]] : f32
// CHECK-NEXT:      %[[EXPM1:.*]] = math.expm1 %[[X]] : f32
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[MULF:.*]] = arith.mulf %[[C2]], %[[EXPM1]] : f32
// CHECK-NEXT:      %[[SELECT:.*]] = arith.select %[[CMPF]], %[[MULF]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[SELECT]] : f32
