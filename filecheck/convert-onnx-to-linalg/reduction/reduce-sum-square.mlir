// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @reduce_sum_square(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %axes = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.ReduceSumSquare"(%x, %axes) {onnx_node_name = "reduce_sum_square"} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  func.return %r : tensor<2x1xf32>
}

// CHECK-LABEL: func.func @reduce_sum_square(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]}
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[SQ]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32

// -----

// With noop_with_empty_axes and no axes nothing is reduced, but the elements
// are still squared.

func.func @reduce_sum_square_noop(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %none = "onnx.NoValue"() : () -> none
  %r = "onnx.ReduceSumSquare"(%x, %none) <{noop_with_empty_axes = 1 : i64}> {onnx_node_name = "reduce_sum_square"} : (tensor<2x3xf32>, none) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reduce_sum_square_noop(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[SQ]] : f32
