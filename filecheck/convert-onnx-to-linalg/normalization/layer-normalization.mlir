// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// Statistics per row over the axes from `axis` on; Scale and B broadcast to
// X; the InvStdDev output is the factor, seen at X's rank.
func.func @layer_normalization(%x: tensor<2x3x4xf32>, %s: tensor<3x4xf32>, %b: tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>) {
  %y, %m, %inv = "onnx.LayerNormalization"(%x, %s, %b) <{axis = 1 : i64}> {onnx_node_name = "ln"} : (tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<4xf32>) -> (tensor<2x3x4xf32>, none, tensor<2x1x1xf32>)
  func.return %y, %inv : tensor<2x3x4xf32>, tensor<2x1x1xf32>
}

// CHECK-LABEL: func.func @layer_normalization
// CHECK:         %[[MEAN:.*]] = memref.alloc() : memref<2xf32>
// CHECK:         iterator_types = ["parallel", "reduction", "reduction"]} ins(%x : memref<2x3x4xf32>) outs(%[[MEAN]]
// CHECK:         %[[FACTOR:.*]] = memref.alloc() : memref<2xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK:         memref.expand_shape %[[FACTOR]]
