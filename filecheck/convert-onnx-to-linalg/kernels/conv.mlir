// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// A 3x3 convolution with padding 1 over a 6-wide row, register blocks of 4
// pixels: columns 1..4 form one block of four accumulators, columns 0 and 5
// are border pixels with their taps clipped; each accumulator is updated in a
// constant-trip loop over the 8 output lanes.
func.func @conv(%x: tensor<1x1x4x6x8xf32>) -> tensor<1x1x4x6x8xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<1x8x3x3x8xf32>}> {onnx_node_name = "w"} : () -> tensor<1x8x3x3x8xf32>
  %b = "onnx.Constant"() <{value = dense<0.25> : tensor<8xf32>}> {onnx_node_name = "b"} : () -> tensor<8xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "kernel.conv"(%x, %w, %b, %none) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_shape = array<i64: 3, 3>, group = 1 : i64, pixels = 4 : i64, activation = "Relu"}> {onnx_node_name = "conv"} : (tensor<1x1x4x6x8xf32>, tensor<1x8x3x3x8xf32>, tensor<8xf32>, none) -> tensor<1x1x4x6x8xf32>
  func.return %y : tensor<1x1x4x6x8xf32>
}

// CHECK-LABEL: func.func @conv
// The left border pixel: one accumulator, the KW range clipped.
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[ACC:.*]] = memref.alloca() : memref<8xf32>
// The block of four interior pixels starting at column 1.
// CHECK:         %[[A0:.*]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT:    %[[A1:.*]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT:    %[[A2:.*]] = memref.alloca() : memref<8xf32>
// CHECK-NEXT:    %[[A3:.*]] = memref.alloca() : memref<8xf32>
// Inside the loops over input channels and taps: one input value per pixel,
// then the lane loop updates all four accumulators.
// CHECK:         memref.load %x
// CHECK-NEXT:    memref.load %x
// CHECK-NEXT:    memref.load %x
// CHECK-NEXT:    memref.load %x
// CHECK:         scf.for %[[V:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[WV:.*]] = memref.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[V]]] : memref<1x8x3x3x8xf32>
// CHECK-NEXT:      %{{.*}} = memref.load %[[A0]][%[[V]]] : memref<8xf32>
// CHECK-NEXT:      %{{.*}} = arith.mulf %{{.*}}, %[[WV]] : f32
// CHECK-NEXT:      %{{.*}} = arith.addf
// CHECK-NEXT:      memref.store %{{.*}}, %[[A0]][%[[V]]] : memref<8xf32>
// CHECK:           memref.store %{{.*}}, %[[A3]][%[[V]]] : memref<8xf32>
// The epilogue: Relu as the accumulators are stored.
// CHECK:         arith.maximumf
// CHECK:         memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x1x4x6x8xf32>
