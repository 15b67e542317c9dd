// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// No mean: the mean square over the last axis, 1 / sqrt(it + epsilon), then
// x * factor * scale.
func.func @rms(%x: tensor<2x3x4xf32>, %s: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %y = "onnx.RMSNormalization"(%x, %s) <{axis = -1 : i64}> {onnx_node_name = "rms"} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @rms
// CHECK:         %[[SQUARES:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : memref<2x3x4xf32>) outs(%[[SQUARES]]
// CHECK:           arith.mulf
// CHECK:         math.sqrt
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
