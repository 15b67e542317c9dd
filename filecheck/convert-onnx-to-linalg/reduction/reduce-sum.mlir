// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @reduce_sum_i32(%x: tensor<2x3x4xi32>) -> tensor<2x1x4xi32> {
  %axes = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.ReduceSum"(%x, %axes) {onnx_node_name = "reduce_sum"} : (tensor<2x3x4xi32>, tensor<1xi64>) -> tensor<2x1x4xi32>
  func.return %r : tensor<2x1x4xi32>
}

// CHECK-LABEL: func.func @reduce_sum_i32(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3x4xi32>, %[[OUT:[^:]*]]: memref<2x1x4xi32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : i32) outs(%[[OUT]] : memref<2x1x4xi32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : memref<2x3x4xi32>) outs(%[[OUT]] : memref<2x1x4xi32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: i32, %[[ACC:[^:]*]]: i32):
// CHECK-NEXT:      %[[S:.*]] = arith.addi %[[ACC]], %[[V]] : i32
// CHECK-NEXT:      linalg.yield %[[S]] : i32
// CHECK-NOT:     linalg.generic

// -----

// Axes known only at run time: checked, the result seen with the reduced
// axes kept (sizes selected at run time), one parallel generic over it whose
// body loops over the reduced extents. How many elements are summed is known
// only at run time, so the float sum accumulates in double and rounds once.

func.func @reduce_sum_runtime_axes(%x: tensor<2x3x4xf32>, %axes: tensor<1xi64>) -> tensor<2x4xf32> {
  %r = "onnx.ReduceSum"(%x, %axes) <{keepdims = 0 : i64}> {onnx_node_name = "reduce_sum"} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @reduce_sum_runtime_axes(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3x4xf32>, %[[AXES:[^:]*]]: memref<1xi64>, %[[OUT:[^:]*]]: memref<2x4xf32>)
// CHECK:         memref.load %[[AXES]]
// CHECK:         onnxc.check {{.*}} "ReduceSum reduce_sum: an axis is in range"
// CHECK:         onnxc.check {{.*}} "ReduceSum reduce_sum: no axis is repeated"
// CHECK:         onnxc.check {{.*}} "size of 2 as inferred"
// CHECK:         onnxc.check {{.*}} "size of 4 as inferred"
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0 : i64, 1 : i64]]
// CHECK-NEXT:    %[[KEPT:.*]] = memref.expand_shape %[[FLAT]] {{\[}}[0 : i64, 1 : i64, 2 : i64]] output_shape [%{{.*}}, %{{.*}}, %{{.*}}] {{.*}} into memref<?x?x?xf32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%[[KEPT]] : memref<?x?x?xf32>)
// CHECK:           %[[I0:.*]] = linalg.index 0 : index
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:           %[[SUM:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f64) {
// CHECK:             scf.for
// CHECK:               scf.for
// CHECK:                 %[[A:.*]] = arith.addi %[[I0]], %{{.*}} : index
// CHECK:                 %[[E:.*]] = memref.load %[[X]][%[[A]], %{{.*}}, %{{.*}}] : memref<2x3x4xf32>
// CHECK-NEXT:            %[[W:.*]] = arith.extf %[[E]] : f32 to f64
// CHECK-NEXT:            %[[T:.*]] = arith.addf %{{.*}}, %[[W]] : f64
// CHECK-NEXT:            scf.yield %[[T]] : f64
// CHECK:           %[[ROUNDED:.*]] = arith.truncf %[[SUM]] : f64 to f32
// CHECK-NEXT:      linalg.yield %[[ROUNDED]] : f32

// -----

func.func @reduce_sum_noop(%x: tensor<2x3xf32>, %axes: tensor<0xi64>) -> tensor<2x3xf32> {
  %r = "onnx.ReduceSum"(%x, %axes) <{noop_with_empty_axes = 1 : i64}> {onnx_node_name = "reduce_sum"} : (tensor<2x3xf32>, tensor<0xi64>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @reduce_sum_noop(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xf32>, %{{.*}}: memref<0xi64>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK-NOT:     linalg.fill
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[V]] : f32
