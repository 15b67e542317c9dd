// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @selu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Selu"(%x) {onnx_node_name = "selu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @selu(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[CMPF:.*]] = arith.cmpf ogt, %[[X]], %[[C]] : f32
// CHECK-NEXT:      %[[EXPM1:.*]] = math.expm1 %[[X]] : f32
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 1.67326319 : f32
// CHECK-NEXT:      %[[MULF:.*]] = arith.mulf %[[C2]], %[[EXPM1]] : f32
// CHECK-NEXT:      %[[SELECT:.*]] = arith.select %[[CMPF]], %[[X]], %[[MULF]] : f32
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 1.05070102 : f32
// CHECK-NEXT:      %[[MULF2:.*]] = arith.mulf %[[C3]], %[[SELECT]] : f32
// CHECK-NEXT:      linalg.yield %[[MULF2]] : f32
