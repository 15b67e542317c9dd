// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @space_to_depth(%x: tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32> {
  %r = "onnx.SpaceToDepth"(%x) <{blocksize = 2 : i64}> {onnx_node_name = "s2d"} : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  func.return %r : tensor<1x8x2x3xf32>
}

// CHECK-LABEL: func.func @space_to_depth
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, (d1 mod 2), ((d2 * 2) + ((d1 floordiv 2) floordiv 2)), ((d3 * 2) + ((d1 floordiv 2) mod 2)))>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
