// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// The loops inside a kernel's accumulation are marked for the C compiler to
// write out (onnxc.unroll, printed as ONNXC_UNROLL(n)): gcc keeps the
// accumulators in registers only within straight-line code.

// A 1x1 convolution of two input blocks of 8 lanes: the loop over the lanes
// of a block (around the accumulator updates) is written out, 8 trips.
func.func @one_by_one(%x: tensor<1x2x2x4x8xf32>) -> tensor<1x1x2x4x8xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<1x16x1x1x8xf32>}> {onnx_node_name = "w"} : () -> tensor<1x16x1x1x8xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "kernel.conv"(%x, %w, %none, %none) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, kernel_shape = array<i64: 1, 1>, group = 1 : i64, pixels = 4 : i64}> {onnx_node_name = "conv"} : (tensor<1x2x2x4x8xf32>, tensor<1x16x1x1x8xf32>, none, none) -> tensor<1x1x2x4x8xf32>
  func.return %y : tensor<1x1x2x4x8xf32>
}

// CHECK-LABEL: func.func @one_by_one
// CHECK:         memref.load %x[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x2x2x4x8xf32>
// CHECK:         } {onnxc.unroll = 8 : i64}
// CHECK:         func.return

// -----

// A 3x3 convolution: the loops over the kernel's rows and columns, 3 trips
// each (fewer at a clipped border: the C compiler handles the rest).
func.func @three_by_three(%x: tensor<1x1x4x6x8xf32>) -> tensor<1x1x4x6x8xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<1x8x3x3x8xf32>}> {onnx_node_name = "w"} : () -> tensor<1x8x3x3x8xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "kernel.conv"(%x, %w, %none, %none) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_shape = array<i64: 3, 3>, group = 1 : i64, pixels = 4 : i64}> {onnx_node_name = "conv"} : (tensor<1x1x4x6x8xf32>, tensor<1x8x3x3x8xf32>, none, none) -> tensor<1x1x4x6x8xf32>
  func.return %y : tensor<1x1x4x6x8xf32>
}

// CHECK-LABEL: func.func @three_by_three
// CHECK:           } {onnxc.unroll = 3 : i64}
// CHECK-NEXT:    } {onnxc.unroll = 3 : i64}

// -----

// Scalar register blocks (Cortex-M4: `unrolled`, the lanes already written
// out by the lowering): no mark.
func.func @scalar(%x: tensor<1x1x4x6x4xf32>) -> tensor<1x1x4x6x4xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<1x4x3x3x4xf32>}> {onnx_node_name = "w"} : () -> tensor<1x4x3x3x4xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "kernel.conv"(%x, %w, %none, %none) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_shape = array<i64: 3, 3>, group = 1 : i64, pixels = 4 : i64, unrolled = 1 : i64}> {onnx_node_name = "conv"} : (tensor<1x1x4x6x4xf32>, tensor<1x4x3x3x4xf32>, none, none) -> tensor<1x1x4x6x4xf32>
  func.return %y : tensor<1x1x4x6x4xf32>
}

// CHECK-LABEL: func.func @scalar
// CHECK-NOT:     onnxc.unroll
// CHECK:         func.return

// -----

// A matrix product: the loop over k, 8 steps per trip.
func.func @matmul(%a: tensor<1x6x20xf32>) -> tensor<1x6x16xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<1x20x16xf32>}> {onnx_node_name = "w"} : () -> tensor<1x20x16xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "kernel.matmul"(%a, %w, %none, %none) <{packed = 1 : i64, lanes = 16 : i64, rows = 4 : i64, bias_first = 0 : i64}> {onnx_node_name = "matmul"} : (tensor<1x6x20xf32>, tensor<1x20x16xf32>, none, none) -> tensor<1x6x16xf32>
  func.return %y : tensor<1x6x16xf32>
}

// CHECK-LABEL: func.func @matmul
// CHECK:         memref.load %a
// CHECK:         } {onnxc.unroll = 8 : i64}
