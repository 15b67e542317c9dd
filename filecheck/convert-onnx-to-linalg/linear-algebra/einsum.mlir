// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// A repeated label is a diagonal: the same loop read twice; nothing is
// summed, so no fill and the body is the element itself.
// CHECK-LABEL: func.func @einsum_diagonal(
// CHECK-SAME:      %[[X:.*]]: memref<3x4x4xf32>, %[[OUT:.*]]: memref<3x4xf32>)
// CHECK-NOT:     linalg.fill
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : memref<3x4x4xf32>) outs(%[[OUT]] : memref<3x4xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[V]] : f32

func.func @einsum_diagonal(%x: tensor<3x4x4xf32>) -> tensor<3x4xf32> {
  %r = "onnx.Einsum"(%x) <{equation = "...ii->...i"}> {onnx_node_name = "e"} : (tensor<3x4x4xf32>) -> tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}

// -----

// Implicit output ('...' then the letters seen once): j is summed; the
// size-1 '...' dimension of x broadcasts (read at 0); bfloat16 accumulates
// in float and is rounded once.
// CHECK-LABEL: func.func @einsum_implicit(
// CHECK-SAME:      %[[X:.*]]: memref<2x1x3xbf16>, %[[Y:.*]]: memref<2x5x3x4xbf16>, %[[OUT:.*]]: memref<2x5x4xbf16>)
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<2x5x4xf32>
// CHECK:         linalg.fill {{.*}} outs(%[[ACC]] : memref<2x5x4xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[X]], %[[Y]] : memref<2x1x3xbf16>, memref<2x5x3x4xbf16>) outs(%[[ACC]] : memref<2x5x4xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: bf16, %[[B:.*]]: bf16, %[[S:.*]]: f32):
// CHECK-NEXT:      %[[AW:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK-NEXT:      %[[BW:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[AW]], %[[BW]] : f32
// CHECK-NEXT:      %[[N:.*]] = arith.addf %[[S]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[N]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : memref<2x5x4xf32>) outs(%[[OUT]] : memref<2x5x4xbf16>)
// CHECK:           arith.truncf

func.func @einsum_implicit(%x: tensor<2x1x3xbf16>, %y: tensor<2x5x3x4xbf16>) -> tensor<2x5x4xbf16> {
  %r = "onnx.Einsum"(%x, %y) <{equation = "...j,...jk"}> {onnx_node_name = "e"} : (tensor<2x1x3xbf16>, tensor<2x5x3x4xbf16>) -> tensor<2x5x4xbf16>
  func.return %r : tensor<2x5x4xbf16>
}
