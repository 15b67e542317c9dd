// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @reduce_mean(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %axes = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.ReduceMean"(%x, %axes) {onnx_node_name = "reduce_mean"} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
  func.return %r : tensor<2x1x4xf32>
}

// CHECK-LABEL: func.func @reduce_mean(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3x4xf32>, %[[OUT:[^:]*]]: memref<2x1x4xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : f32) outs(%[[OUT]] : memref<2x1x4xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : memref<2x3x4xf32>) outs(%[[OUT]] : memref<2x1x4xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%[[OUT]] : memref<2x1x4xf32>)
// CHECK-NEXT:    ^bb0(%[[TOTAL:[^:]*]]: f32):
// CHECK-NEXT:      %[[COUNT:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT:      %[[MEAN:.*]] = arith.divf %[[TOTAL]], %[[COUNT]] : f32
// CHECK-NEXT:      linalg.yield %[[MEAN]] : f32

// -----

func.func @reduce_mean_drop_negative_axes(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %axes = "onnx.Constant"() <{value = dense<[-1, 0]> : tensor<2xi64>}> {onnx_node_name = "axes"} : () -> tensor<2xi64>
  %r = "onnx.ReduceMean"(%x, %axes) <{keepdims = 0 : i64}> {onnx_node_name = "reduce_mean"} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @reduce_mean_drop_negative_axes(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3x4xf32>, %[[OUT:[^:]*]]: memref<3xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : f32) outs(%[[OUT]] : memref<3xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]] : memref<2x3x4xf32>) outs(%[[OUT]] : memref<3xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%[[OUT]] : memref<3xf32>)
// CHECK-NEXT:    ^bb0(%[[TOTAL:[^:]*]]: f32):
// CHECK-NEXT:      %[[COUNT:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:      %[[MEAN:.*]] = arith.divf %[[TOTAL]], %[[COUNT]] : f32
// CHECK-NEXT:      linalg.yield %[[MEAN]] : f32

// -----

func.func @reduce_mean_all(%x: tensor<2x3xf32>) -> tensor<1x1xf32> {
  %none = "onnx.NoValue"() : () -> none
  %r = "onnx.ReduceMean"(%x, %none) {onnx_node_name = "reduce_mean"} : (tensor<2x3xf32>, none) -> tensor<1x1xf32>
  func.return %r : tensor<1x1xf32>
}

// CHECK-LABEL: func.func @reduce_mean_all(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<1x1xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : f32) outs(%[[OUT]] : memref<1x1xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, 0)>], iterator_types = ["reduction", "reduction"]} ins(%[[X]] : memref<2x3xf32>) outs(%[[OUT]] : memref<1x1xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%[[OUT]] : memref<1x1xf32>)
// CHECK-NEXT:    ^bb0(%[[TOTAL:[^:]*]]: f32):
// CHECK-NEXT:      %[[COUNT:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT:      %[[MEAN:.*]] = arith.divf %[[TOTAL]], %[[COUNT]] : f32
// CHECK-NEXT:      linalg.yield %[[MEAN]] : f32

// -----

func.func @reduce_mean_noop(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %none = "onnx.NoValue"() : () -> none
  %r = "onnx.ReduceMean"(%x, %none) <{noop_with_empty_axes = 1 : i64}> {onnx_node_name = "reduce_mean"} : (tensor<2x3xf32>, none) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reduce_mean_noop(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK-NOT:     arith.divf
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK-NOT:     arith.divf
// CHECK:         func.return
