// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @mel(%low: tensor<f32>, %high: tensor<f32>) -> tensor<9x4xf32> {
  %bands = "onnx.Constant"() <{value = dense<4> : tensor<i64>}> : () -> tensor<i64>
  %length = "onnx.Constant"() <{value = dense<16> : tensor<i64>}> : () -> tensor<i64>
  %rate = "onnx.Constant"() <{value = dense<8000> : tensor<i64>}> : () -> tensor<i64>
  %r = "onnx.MelWeightMatrix"(%bands, %length, %rate, %low, %high) {onnx_node_name = "mel"} : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<9x4xf32>
  func.return %r : tensor<9x4xf32>
}

// The mel edges from log1p, the step over num_mel_bins + 2 = 6; each element
// places its bin between three band edges (expm1, floor).
// CHECK-LABEL: func.func @mel
// CHECK-SAME:    (%[[LOW:.*]]: memref<f32>, %[[HIGH:.*]]: memref<f32>, %[[Y:.*]]: memref<9x4xf32>)
// CHECK:         memref.load %[[LOW]][] {{.*}}: memref<f32>
// CHECK:         math.log1p
// CHECK:         memref.load %[[HIGH]][] {{.*}}: memref<f32>
// CHECK:         math.log1p
// CHECK:         arith.constant {{.*}}6.000000e+00 : f64
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%[[Y]] : memref<9x4xf32>)
// CHECK-COUNT-3:   math.expm1
// CHECK:           arith.select
// CHECK:           arith.truncf %{{.*}} : f64 to f32
