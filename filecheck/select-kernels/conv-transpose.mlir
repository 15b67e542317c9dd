// RUN: xdsl-opt -p 'select-kernels{target=host-portable}' %s | filecheck %s
// RUN: xdsl-opt -p 'select-kernels{target=cortex-m4}' %s | filecheck %s --check-prefix=M4

// Transposed convolutions on the kernels (select_kernels/transposed.py).

// Stride 2 = kernel 2: a 1x1 convolution into 4 taps x 3 channels, then a
// Col2Im scatter; the taps never overlap, so the bias (repeated per tap) is
// the 1x1 convolution's, and the BatchNormalization after it folds in first.
// The columns (12 x 16 floats) are no larger than the output (3 x 64): the
// Cortex-M4 takes it too.
func.func @upsample(%x: tensor<1x2x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<2x3x2x2xf32>}> {onnx_node_name = "w"} : () -> tensor<2x3x2x2xf32>
  %b = "onnx.Constant"() <{value = dense<1.0> : tensor<3xf32>}> {onnx_node_name = "b"} : () -> tensor<3xf32>
  %scale = "onnx.Constant"() <{value = dense<2.0> : tensor<3xf32>}> {onnx_node_name = "scale"} : () -> tensor<3xf32>
  %shift = "onnx.Constant"() <{value = dense<0.25> : tensor<3xf32>}> {onnx_node_name = "shift"} : () -> tensor<3xf32>
  %mean = "onnx.Constant"() <{value = dense<1.0> : tensor<3xf32>}> {onnx_node_name = "mean"} : () -> tensor<3xf32>
  %var = "onnx.Constant"() <{value = dense<3.0> : tensor<3xf32>}> {onnx_node_name = "var"} : () -> tensor<3xf32>
  %y = "onnx.ConvTranspose"(%x, %w, %b) <{strides = array<i64: 2, 2>}> {onnx_node_name = "up"} : (tensor<1x2x4x4xf32>, tensor<2x3x2x2xf32>, tensor<3xf32>) -> tensor<1x3x8x8xf32>
  %z, %m, %v = "onnx.BatchNormalization"(%y, %scale, %shift, %mean, %var) <{epsilon = 1.0 : f32}> {onnx_node_name = "bn"} : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x3x8x8xf32>, none, none)
  func.return %z : tensor<1x3x8x8xf32>
}

// CHECK-LABEL: func.func @upsample
// CHECK-NOT:     onnx.ConvTranspose
// CHECK-NOT:     onnx.BatchNormalization
// CHECK:         "kernel.conv"(%{{.*}}, %w_normalised_columns_packed, %w_normalised_taps_bias_padded, %{{.*}}) <{{{.*}}kernel_shape = array<i64: 1, 1>{{.*}}}> {onnx_node_name = "up+bn"} : ({{.*}}) -> tensor<1x1x4x4x12xf32>
// CHECK:         %[[COLUMNS:.*]] = "onnx.Reshape"({{.*}}) : ({{.*}}) -> tensor<1x12x16xf32>
// CHECK:         "onnx.Col2Im"(%[[COLUMNS]], {{.*}}) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>}> {onnx_node_name = "up+bn scatter"} : (tensor<1x12x16xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x3x8x8xf32>
// CHECK-NOT:     onnx.Add

// M4-LABEL: func.func @upsample
// M4:         "onnx.Col2Im"

// Kernel 4, stride 2, pads 1: the taps overlap, so the bias is an Add after
// the scatter. Its columns (48 x 9 floats) are larger than the output
// (3 x 36): the Cortex-M4 keeps the plain loops.
func.func @overlapping(%x: tensor<1x2x3x3xf32>) -> tensor<1x3x6x6xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<2x3x4x4xf32>}> {onnx_node_name = "w"} : () -> tensor<2x3x4x4xf32>
  %b = "onnx.Constant"() <{value = dense<1.0> : tensor<3xf32>}> {onnx_node_name = "b"} : () -> tensor<3xf32>
  %y = "onnx.ConvTranspose"(%x, %w, %b) <{strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}> {onnx_node_name = "up"} : (tensor<1x2x3x3xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>) -> tensor<1x3x6x6xf32>
  func.return %y : tensor<1x3x6x6xf32>
}

// CHECK-LABEL: func.func @overlapping
// CHECK:         "kernel.conv"
// CHECK:         "onnx.Col2Im"({{.*}}) <{strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>}> {onnx_node_name = "up scatter"} : (tensor<1x48x9xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x3x6x6xf32>
// CHECK:         "onnx.Add"({{.*}}) {onnx_node_name = "up bias"} : (tensor<1x3x6x6xf32>, tensor<3x1x1xf32>) -> tensor<1x3x6x6xf32>

// M4-LABEL: func.func @overlapping
// M4-NOT:     onnx.Col2Im
// M4:         "onnx.ConvTranspose"

// Stride 1: the convolution with the kernel flipped and its channels
// swapped ([2, 3, 3, 3] -> [3, 2, 3, 3]), padded by 2 * (3 - 1) - pad:
// pads (1, 1) at the start and (2, 1) at the end become (3, 3) and (2, 3).
func.func @stride_one(%x: tensor<1x2x5x5xf32>) -> tensor<1x3x6x7xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<2x3x3x3xf32>}> {onnx_node_name = "w"} : () -> tensor<2x3x3x3xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.ConvTranspose"(%x, %w, %none) <{dilations = array<i64: 2, 2>, pads = array<i64: 1, 1, 2, 1>}> {onnx_node_name = "deconv"} : (tensor<1x2x5x5xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x3x6x7xf32>
  func.return %y : tensor<1x3x6x7xf32>
}

// CHECK-LABEL: func.func @stride_one
// CHECK-NOT:     onnx.ConvTranspose
// CHECK:         "kernel.conv"(%{{.*}}, %w_flipped_packed, %{{.*}}, %{{.*}}) <{strides = array<i64: 1, 1>, dilations = array<i64: 2, 2>, pads = array<i64: 3, 3, 2, 3>, kernel_shape = array<i64: 3, 3>, {{.*}}}> {onnx_node_name = "deconv"} : (tensor<1x1x5x5x2xf32>, tensor<1x2x3x3x3xf32>, none, none) -> tensor<1x1x6x7x3xf32>

// M4-LABEL: func.func @stride_one
// M4:         "kernel.conv"({{.*}}) <{{{.*}}}> {onnx_node_name = "deconv"}
