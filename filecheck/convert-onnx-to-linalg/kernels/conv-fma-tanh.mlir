// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// A 1x1 convolution of 6 output lanes whose packed weights have 8 (the
// accumulators are whole vectors; the lanes past 6 are never stored), with
// fused multiply-adds, and Tanh applied to each finished output row rather
// than as the accumulators are stored.
func.func @conv(%x: tensor<1x1x2x3x4xf32>) -> tensor<1x1x2x3x6xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<1x4x1x1x8xf32>}> {onnx_node_name = "w"} : () -> tensor<1x4x1x1x8xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "kernel.conv"(%x, %w, %none, %none) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, kernel_shape = array<i64: 1, 1>, group = 1 : i64, pixels = 4 : i64, activation = "Tanh", fma = 1 : i64}> {onnx_node_name = "conv"} : (tensor<1x1x2x3x4xf32>, tensor<1x4x1x1x8xf32>, none, none) -> tensor<1x1x2x3x6xf32>
  func.return %y : tensor<1x1x2x3x6xf32>
}

// CHECK-LABEL: func.func @conv
// CHECK:         %[[A0:.*]] = memref.alloca() : memref<8xf32>
// CHECK:         memref.load %x
// The lane loop of the taps runs over all 8 lanes.
// CHECK:         %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK-NEXT:    %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:    scf.for %[[V:.*]] = %{{.*}} to %[[EIGHT]] step %{{.*}} {
// CHECK-NEXT:      %[[WV:.*]] = memref.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[V]]] : memref<1x4x1x1x8xf32>
// CHECK-NEXT:      %[[OLD:.*]] = memref.load %[[A0]][%[[V]]] : memref<8xf32>
// CHECK-NEXT:      %[[NEW:.*]] = math.fma %{{.*}}, %[[WV]], %[[OLD]] : f32
// CHECK-NEXT:      memref.store %[[NEW]], %[[A0]][%[[V]]] : memref<8xf32>
// The accumulators are stored as they are, 6 lanes of 8.
// CHECK:         %[[SIX:.*]] = arith.constant 6 : index
// CHECK-NEXT:    %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:    scf.for %[[S:.*]] = %{{.*}} to %[[SIX]] step %{{.*}} {
// CHECK-NEXT:      %[[R:.*]] = memref.load %[[A0]][%[[S]]] : memref<8xf32>
// CHECK-NEXT:      memref.store %[[R]], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[S]]] : memref<1x1x2x3x6xf32>
// CHECK-NOT:     math.tanh
// Then the row pass: every column, 6 lanes.
// CHECK:         scf.for %[[OW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[SIX2:.*]] = arith.constant 6 : index
// CHECK-NEXT:      %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:      scf.for %[[L:.*]] = %{{.*}} to %[[SIX2]] step %{{.*}} {
// CHECK-NEXT:        %[[Y:.*]] = memref.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %[[OW]], %[[L]]]
// CHECK-NEXT:        %[[T:.*]] = math.tanh %[[Y]] : f32
// CHECK-NEXT:        memref.store %[[T]], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %[[OW]], %[[L]]]
