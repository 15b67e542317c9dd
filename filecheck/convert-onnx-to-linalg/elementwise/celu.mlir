// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @celu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Celu"(%x) <{alpha = 2.000000e+00 : f32}> {onnx_node_name = "celu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @celu(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[MULF:.*]] = arith.mulf %[[C2]], %[[X]] : f32
// CHECK-NEXT:      %[[EXPM1:.*]] = math.expm1 %[[MULF]] : f32
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[MULF2:.*]] = arith.mulf %[[C3]], %[[EXPM1]] : f32
// CHECK-NEXT:      %[[MAXIMUMF:.*]] = arith.maximumf %[[C]], %[[X]] : f32
// CHECK-NEXT:      %[[MINIMUMF:.*]] = arith.minimumf %[[C]], %[[MULF2]] : f32
// CHECK-NEXT:      %[[ADDF:.*]] = arith.addf %[[MAXIMUMF]], %[[MINIMUMF]] : f32
// CHECK-NEXT:      linalg.yield %[[ADDF]] : f32
