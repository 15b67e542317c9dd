// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// p = 2 along axis 1: the sum of squares per (n, k), then x / sqrt(sum).
func.func @lp_normalization(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %y = "onnx.LpNormalization"(%x) <{axis = 1 : i64, p = 2 : i64}> {onnx_node_name = "lpn"} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %y : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @lp_normalization
// CHECK:         %[[NORMS:.*]] = memref.alloc() : memref<2x4xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK:           math.sqrt
// CHECK:           arith.divf
