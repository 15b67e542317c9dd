// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// The maximum over the spatial axes: a fill with the lowest value, then a
// reduction generic into [N, C, 1, 1].
func.func @global_max_pool(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32> {
  %y = "onnx.GlobalMaxPool"(%x) {onnx_node_name = "gmp"} : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
  func.return %y : tensor<1x2x1x1xf32>
}

// CHECK-LABEL: func.func @global_max_pool
// CHECK:         %[[LOW:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    linalg.fill {onnxc.comment = "GlobalMaxPool gmp"} ins(%[[LOW]] : f32) outs(%out0 : memref<1x2x1x1xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
// CHECK:           arith.maximumf
