// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// A 3x3 convolution with padding 1 over a 6-wide row, register blocks of 4
// pixels: both blocks (columns 0..3 and 4..5) have taps outside the input,
// which they mask; each accumulator is updated in a constant-trip loop over
// the 8 output lanes.
func.func @conv(%x: tensor<1x1x4x6x8xf32>) -> tensor<1x1x4x6x8xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<1x8x3x3x8xf32>}> {onnx_node_name = "w"} : () -> tensor<1x8x3x3x8xf32>
  %b = "onnx.Constant"() <{value = dense<0.25> : tensor<8xf32>}> {onnx_node_name = "b"} : () -> tensor<8xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "kernel.conv"(%x, %w, %b, %none) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_shape = array<i64: 3, 3>, group = 1 : i64, pixels = 4 : i64, activation = "Relu"}> {onnx_node_name = "conv"} : (tensor<1x1x4x6x8xf32>, tensor<1x8x3x3x8xf32>, tensor<8xf32>, none) -> tensor<1x1x4x6x8xf32>
  func.return %y : tensor<1x1x4x6x8xf32>
}

// CHECK-LABEL: func.func @conv
// Columns 0..3: a block of four accumulators at the left border, so its
// taps outside the input are masked: each pixel's input value is read at a
// clamped column and replaced by 0 (the padding) where the tap is outside.
// CHECK:         %[[A0:.*]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT:    %[[A1:.*]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT:    %[[A2:.*]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT:    %[[A3:.*]] = memref.alloca() : memref<8xf32>
// CHECK:         %[[IN:.*]] = memref.load %x
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[X0:.*]] = arith.select %{{.*}}, %[[IN]], %[[ZERO]] : f32
// CHECK:         arith.select
// CHECK:         arith.select
// CHECK:         arith.select
// Then the lane loop updates all four accumulators.
// CHECK:         scf.for %[[V:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[WV:.*]] = memref.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[V]]] : memref<1x8x3x3x8xf32>
// CHECK-NEXT:      %{{.*}} = memref.load %[[A0]][%[[V]]] : memref<8xf32>
// CHECK-NEXT:      %{{.*}} = arith.mulf %[[X0]], %[[WV]] : f32
// CHECK-NEXT:      %{{.*}} = arith.addf
// CHECK-NEXT:      memref.store %{{.*}}, %[[A0]][%[[V]]] : memref<8xf32>
// CHECK:           memref.store %{{.*}}, %[[A3]][%[[V]]] : memref<8xf32>
// The epilogue: Relu as the accumulators are stored.
// CHECK:         arith.maximumf
// CHECK:         memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x1x4x6x8xf32>
// Columns 4..5: a masked block of two at the right border.
// CHECK:         memref.alloca() : memref<8xf32>
// CHECK-NEXT:    memref.alloca() : memref<8xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         arith.select
