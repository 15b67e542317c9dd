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

// -----

// A float sum of 16 or more terms accumulates in double (the terms converted
// exactly) and is rounded to float once, before the division.

func.func @reduce_mean_long(%x: tensor<2x16xf32>) -> tensor<2x1xf32> {
  %axes = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.ReduceMean"(%x, %axes) {onnx_node_name = "reduce_mean"} : (tensor<2x16xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  func.return %r : tensor<2x1xf32>
}

// CHECK-LABEL: func.func @reduce_mean_long(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x16xf32>, %[[OUT:[^:]*]]: memref<2x1xf32>)
// CHECK:         %[[SUM:.*]] = memref.alloc() : memref<2x1xf64>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : f64) outs(%[[SUM]] : memref<2x1xf64>)
// CHECK-NEXT:    linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : memref<2x16xf32>) outs(%[[SUM]] : memref<2x1xf64>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f64):
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[V]] : f32 to f64
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[W]] : f64
// CHECK-NEXT:      linalg.yield %[[S]] : f64
// CHECK:         linalg.generic {{.*}} outs(%[[SUM]] : memref<2x1xf64>)
// CHECK-NEXT:    ^bb0(%[[TOTAL:[^:]*]]: f64):
// CHECK-NEXT:      %[[F:.*]] = arith.truncf %[[TOTAL]] : f64 to f32
// CHECK-NEXT:      %[[COUNT:.*]] = arith.constant 1.600000e+01 : f32
// CHECK-NEXT:      %[[MEAN:.*]] = arith.divf %[[F]], %[[COUNT]] : f32
// CHECK-NEXT:      %[[BACK:.*]] = arith.extf %[[MEAN]] : f32 to f64
// CHECK-NEXT:      linalg.yield %[[BACK]] : f64
// CHECK:         linalg.generic {{.*}} ins(%[[SUM]] : memref<2x1xf64>) outs(%[[OUT]] : memref<2x1xf32>)
// CHECK-NEXT:    ^bb0(%[[M:[^:]*]]: f64, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = arith.truncf %[[M]] : f64 to f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
