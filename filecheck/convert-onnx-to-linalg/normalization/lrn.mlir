// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// Each output loops over the channels of its window inside C (clamped to
// [0, C)), summing squares, then divides x by (bias + alpha / size * sum)^beta.
func.func @lrn(%x: tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32> {
  %y = "onnx.LRN"(%x) <{size = 3 : i64, alpha = 0.01 : f32, beta = 0.75 : f32, bias = 1.5 : f32}> {onnx_node_name = "lrn"} : (tensor<1x5x2x2xf32>) -> tensor<1x5x2x2xf32>
  func.return %y : tensor<1x5x2x2xf32>
}

// CHECK-LABEL: func.func @lrn
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%out0
// CHECK:           %[[C:.*]] = linalg.index 1 : index
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK:           scf.for {{.*}} iter_args({{.*}}) -> (f32)
// CHECK:           math.powf
// CHECK:           arith.divf
