// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// X [2, 4, 3] is seen as [2, G = 2, 2, 3]: statistics per (n, g), and the
// per-channel scale and bias read at g * 2 + c.
func.func @group_normalization(%x: tensor<2x4x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4x3xf32> {
  %y = "onnx.GroupNormalization"(%x, %s, %b) <{num_groups = 2 : i64}> {onnx_node_name = "gn"} : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3xf32>
  func.return %y : tensor<2x4x3xf32>
}

// CHECK-LABEL: func.func @group_normalization
// CHECK:         %[[GROUPED:.*]] = memref.expand_shape %x {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64]] output_shape [2, 2, 2, 3]
// CHECK:         memref.alloc() : memref<2x2xf32>
// CHECK:         affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK:         affine_map<(d0, d1, d2, d3) -> (((d1 * 2) + d2))>
