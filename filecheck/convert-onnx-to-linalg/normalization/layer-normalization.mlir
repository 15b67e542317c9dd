// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

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

// -----

// Over the last axis only, with the rows in whole blocks of 8: the mean and
// the spread reduce 8 rows at a time (rows seen as [rows / 8, 8], the loop
// over the 8 innermost; each row keeps its order of summation).
func.func @rows(%x: tensor<16x6xf32>, %s: tensor<6xf32>) -> tensor<16x6xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y, %m, %inv = "onnx.LayerNormalization"(%x, %s, %none) {onnx_node_name = "ln"} : (tensor<16x6xf32>, tensor<6xf32>, none) -> (tensor<16x6xf32>, none, none)
  func.return %y : tensor<16x6xf32>
}

// CHECK-LABEL: func.func @rows
// CHECK:         %[[MEAN:.*]] = memref.alloc() : memref<16xf32>
// CHECK:         %[[X1:.*]] = memref.expand_shape %x {{.*}} : memref<16x6xf32> into memref<2x8x6xf32>
// CHECK-NEXT:    %[[M1:.*]] = memref.expand_shape %[[MEAN]] {{.*}} : memref<16xf32> into memref<2x8xf32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X1]] : memref<2x8x6xf32>) outs(%[[M1]] : memref<2x8xf32>)
// CHECK:         %[[SPREAD:.*]] = memref.alloc() : memref<16xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME:      outs(%{{.*}} : memref<2x8xf32>)
