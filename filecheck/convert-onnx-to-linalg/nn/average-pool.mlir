// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// The division by the number of counted taps is fused into the pooling body:
// a per-position divisor (count_include_pad=0 near the border) is read from a
// weight of the spatial shape.

// CHECK:       "memref.global"() <{sym_name = "avg_divisor", type = memref<3x3xf32>, initial_value = dense<{{\[\[}}4.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 4.000000e+00]]> : memref<3x3xf32>, sym_visibility = "private", constant
// CHECK-LABEL: func.func @average_pool_exclude_pad(
// CHECK-SAME:      %[[X:.*]]: memref<1x1x3x3xf32>, %[[OUT:.*]]: memref<1x1x3x3xf32>)
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     linalg.fill
// CHECK:         %[[DIVISOR:.*]] = memref.get_global @avg_divisor : memref<3x3xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[DIVISOR]] : memref<3x3xf32>) outs(%[[OUT]] : memref<1x1x3x3xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[D:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[SUM:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK:             %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:             scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32) {
// CHECK:               scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK:                 %[[XS:.*]] = memref.load %[[X]]
// CHECK-NEXT:            %{{.*}} = arith.addf %[[ACC]], %[[XS]] : f32
// CHECK:           } else {
// CHECK:             arith.maxsi
// CHECK:             arith.minsi
// CHECK:             memref.load %[[X]]
// CHECK:           %[[Q:.*]] = arith.divf %[[SUM]], %[[D]] : f32
// CHECK-NEXT:      linalg.yield %[[Q]] : f32

func.func @average_pool_exclude_pad(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %y = "onnx.AveragePool"(%x) <{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}> {onnx_node_name = "avg"} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  func.return %y : tensor<1x1x3x3xf32>
}

// -----

// Every window counts the same: the body divides by a constant.

// CHECK-LABEL: func.func @average_pool_uniform(
// CHECK-SAME:      %[[X:.*]]: memref<1x2x4x4xf32>, %[[OUT:.*]]: memref<1x2x2x2xf32>)
// CHECK-NOT:     memref.get_global
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.*}} outs(%[[OUT]] : memref<1x2x2x2xf32>)
// CHECK-NOT:       scf.if
// CHECK:           memref.load %[[X]]
// CHECK:           arith.addf
// CHECK:           %[[D:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %{{.*}}, %[[D]] : f32
// CHECK-NEXT:      linalg.yield %[[Q]] : f32
// CHECK-NOT:     linalg.generic

func.func @average_pool_uniform(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %y = "onnx.AveragePool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> {onnx_node_name = "avg"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}
