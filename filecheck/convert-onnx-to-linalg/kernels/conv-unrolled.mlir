// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// The scalar register block of a core without SIMD (`unrolled`): 4 output
// channels of 4 pixels, with the lane loop written out, so that each of the
// 16 accumulator elements is addressed by a constant (the C compiler keeps
// them in scalar registers). Columns 1..4 of the 6-wide rows form the block.
func.func @conv(%x: tensor<1x1x3x6x4xf32>) -> tensor<1x2x3x6x4xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<2x4x3x3x4xf32>}> {onnx_node_name = "w"} : () -> tensor<2x4x3x3x4xf32>
  %b = "onnx.Constant"() <{value = dense<0.25> : tensor<8xf32>}> {onnx_node_name = "b"} : () -> tensor<8xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "kernel.conv"(%x, %w, %b, %none) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_shape = array<i64: 3, 3>, group = 1 : i64, pixels = 4 : i64, unrolled = 1 : i64}> {onnx_node_name = "conv"} : (tensor<1x1x3x6x4xf32>, tensor<2x4x3x3x4xf32>, tensor<8xf32>, none) -> tensor<1x2x3x6x4xf32>
  func.return %y : tensor<1x2x3x6x4xf32>
}

// CHECK-LABEL: func.func @conv
// The left border pixel (column 0): one accumulator array; then the block.
// CHECK:         memref.alloca() : memref<4xf32>
// CHECK:         %[[A0:.*]] = memref.alloca() : memref<4xf32>
// CHECK-NEXT:    %[[A1:.*]] = memref.alloca() : memref<4xf32>
// CHECK-NEXT:    %[[A2:.*]] = memref.alloca() : memref<4xf32>
// CHECK-NEXT:    %[[A3:.*]] = memref.alloca() : memref<4xf32>
// The bias of lane 0 starts all four accumulators, then lanes 1 to 3 do.
// CHECK:         %[[B0:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<8xf32>
// CHECK-NEXT:    memref.store %[[B0]], %[[A0]][%{{.*}}] : memref<4xf32>
// CHECK-NEXT:    memref.store %[[B0]], %[[A1]][%{{.*}}] : memref<4xf32>
// Inside the loops over input channels and taps: one input value per pixel,
// then each lane written out, no loop over the lanes.
// CHECK:         %[[X0:.*]] = memref.load %x
// CHECK-NEXT:    %[[X1:.*]] = memref.load %x
// CHECK-NEXT:    memref.load %x
// CHECK-NEXT:    memref.load %x
// CHECK-NEXT:    %[[L0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[W0:.*]] = memref.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[L0]]] : memref<2x4x3x3x4xf32>
// CHECK-NEXT:    %[[S0:.*]] = memref.load %[[A0]][%[[L0]]] : memref<4xf32>
// CHECK-NEXT:    %[[P0:.*]] = arith.mulf %[[X0]], %[[W0]] : f32
// CHECK-NEXT:    %[[T0:.*]] = arith.addf %[[S0]], %[[P0]] : f32
// CHECK-NEXT:    memref.store %[[T0]], %[[A0]][%[[L0]]] : memref<4xf32>
// CHECK-NEXT:    %[[S1:.*]] = memref.load %[[A1]][%[[L0]]] : memref<4xf32>
// CHECK-NEXT:    %{{.*}} = arith.mulf %[[X1]], %[[W0]] : f32
// CHECK-NOT:     scf.for
// CHECK:         %[[L3:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[W3:.*]] = memref.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[L3]]] : memref<2x4x3x3x4xf32>
// CHECK-NOT:     scf.for
// CHECK:         memref.store %{{.*}}, %[[A3]][%[[L3]]] : memref<4xf32>
// CHECK-NEXT:  }
// The stores of the results: lane by lane, too.
// CHECK:         memref.load %[[A0]][%{{.*}}] : memref<4xf32>
// CHECK-NEXT:    memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x2x3x6x4xf32>
