// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @gelu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Gelu"(%x) {onnx_node_name = "gelu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @gelu(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 0.707106769 : f32
// CHECK-NEXT:      %[[MULF:.*]] = arith.mulf %[[C]], %[[X]] : f32
// CHECK-NEXT:      %[[ERF:.*]] = math.erf %[[MULF]] : f32
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[MULF2:.*]] = arith.mulf %[[C3]], %[[X]] : f32
// CHECK-NEXT:      %[[ADDF:.*]] = arith.addf %[[C2]], %[[ERF]] : f32
// CHECK-NEXT:      %[[MULF3:.*]] = arith.mulf %[[MULF2]], %[[ADDF]] : f32
// CHECK-NEXT:      linalg.yield %[[MULF3]] : f32

// -----

func.func @gelu_tanh(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Gelu"(%x) <{approximate = "tanh"}> {onnx_node_name = "gelu_tanh"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @gelu_tanh(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[MULF:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-NEXT:      %[[MULF2:.*]] = arith.mulf %[[MULF]], %[[X]] : f32
// CHECK-NEXT:      %[[C:.*]] = arith.constant 4.471500e-02 : f32
// CHECK-NEXT:      %[[MULF3:.*]] = arith.mulf %[[C]], %[[MULF2]] : f32
// CHECK-NEXT:      %[[ADDF:.*]] = arith.addf %[[X]], %[[MULF3]] : f32
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 0.797884524 : f32
// CHECK-NEXT:      %[[MULF4:.*]] = arith.mulf %[[C2]], %[[ADDF]] : f32
// CHECK-NEXT:      %[[TANH:.*]] = math.tanh %[[MULF4]] : f32
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[C4:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[MULF5:.*]] = arith.mulf %[[C4]], %[[X]] : f32
// CHECK-NEXT:      %[[ADDF2:.*]] = arith.addf %[[C3]], %[[TANH]] : f32
// CHECK-NEXT:      %[[MULF6:.*]] = arith.mulf %[[MULF5]], %[[ADDF2]] : f32
// CHECK-NEXT:      linalg.yield %[[MULF6]] : f32
