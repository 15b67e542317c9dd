// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// kernel.block of whole blocks: a copy over the blocked positions, lanes
// innermost, reading channel cb * 16 + v (no division per element).
func.func @whole(%x: tensor<1x32x2x3xf32>) -> tensor<1x2x2x3x16xf32> {
  %y = "kernel.block"(%x) {onnx_node_name = "in"} : (tensor<1x32x2x3xf32>) -> tensor<1x2x2x3x16xf32>
  func.return %y : tensor<1x2x2x3x16xf32>
}

// CHECK-LABEL: func.func @whole
// CHECK-NOT:     linalg.fill
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, ((d1 * 16) + d4), d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}

// -----

// 20 channels in blocks of 16: the padding lanes are zeroed first, and the
// copy runs over the NCHW positions.
func.func @padded(%x: tensor<1x20x2x3xf32>) -> tensor<1x2x2x3x16xf32> {
  %y = "kernel.block"(%x) {onnx_node_name = "in"} : (tensor<1x20x2x3xf32>) -> tensor<1x2x2x3x16xf32>
  func.return %y : tensor<1x2x2x3x16xf32>
}

// CHECK-LABEL: func.func @padded
// CHECK:         linalg.fill
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, (d1 floordiv 16), d2, d3, (d1 mod 16))>]
