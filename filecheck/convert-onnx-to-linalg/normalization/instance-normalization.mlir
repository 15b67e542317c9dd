// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// Statistics per (n, c) over the spatial axes (mean, then the mean squared
// deviation turned into 1 / sqrt(variance + epsilon)), then one generic
// reading them and scale[c], B[c] through maps that keep n, c or c.
func.func @instance_normalization(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x4xf32> {
  %y = "onnx.InstanceNormalization"(%x, %s, %b) <{epsilon = 1.0e-05 : f32}> {onnx_node_name = "in"} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @instance_normalization
// CHECK:         %[[MEAN:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : memref<2x3x4xf32>) outs(%[[MEAN]]
// CHECK:         %[[FACTOR:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK:         math.sqrt
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %[[MEAN]], %[[FACTOR]], %s, %b :
