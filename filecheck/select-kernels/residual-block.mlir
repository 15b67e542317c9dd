// RUN: xdsl-opt -p 'select-kernels{target=host-portable}' --split-input-file %s | filecheck %s

// A residual block: Conv -> Relu -> Conv -> Add(skip) -> Relu (the skip is
// the second conv's own input, so it is not overwritten in place). Both
// convolutions become blocked kernels with their epilogues fused; the blocked
// layout passes from one kernel to the next (one block at the input, one
// unblock at the output); 24 channels are blocked by 12 (no padding lanes),
// and the packed weights and bias have 16 lanes a block (a whole vector of
// accumulators; zeros past the 12).
func.func @residual(%x: tensor<1x24x6x6xf32>) -> tensor<1x24x6x6xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<24x24x3x3xf32>}> {onnx_node_name = "w"} : () -> tensor<24x24x3x3xf32>
  %b = "onnx.Constant"() <{value = dense<0.25> : tensor<24xf32>}> {onnx_node_name = "b"} : () -> tensor<24xf32>
  %c1 = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> {onnx_node_name = "conv1"} : (tensor<1x24x6x6xf32>, tensor<24x24x3x3xf32>, tensor<24xf32>) -> tensor<1x24x6x6xf32>
  %r1 = "onnx.Relu"(%c1) {onnx_node_name = "relu1"} : (tensor<1x24x6x6xf32>) -> tensor<1x24x6x6xf32>
  %none = "onnx.NoValue"() : () -> none
  %c2 = "onnx.Conv"(%r1, %w, %none) <{pads = array<i64: 1, 1, 1, 1>}> {onnx_node_name = "conv2"} : (tensor<1x24x6x6xf32>, tensor<24x24x3x3xf32>, none) -> tensor<1x24x6x6xf32>
  %s = "onnx.Add"(%c2, %r1) {onnx_node_name = "add"} : (tensor<1x24x6x6xf32>, tensor<1x24x6x6xf32>) -> tensor<1x24x6x6xf32>
  %y = "onnx.Relu"(%s) {onnx_node_name = "relu2"} : (tensor<1x24x6x6xf32>) -> tensor<1x24x6x6xf32>
  func.return %y : tensor<1x24x6x6xf32>
}

// CHECK-LABEL: func.func @residual
// CHECK:         %[[W:.*]] = "onnx.Constant"() <{value = dense_resource<w_packed> : tensor<2x24x3x3x16xf32>}>
// CHECK:         %[[B:.*]] = "onnx.Constant"() <{value = dense_resource<b_padded> : tensor<32xf32>}>
// CHECK:         %[[X:.*]] = "kernel.block"(%x) {onnx_node_name = "conv1 input"} : (tensor<1x24x6x6xf32>) -> tensor<1x2x6x6x12xf32>
// CHECK:         %[[C1:.*]] = "kernel.conv"(%[[X]], %[[W]], %[[B]], %{{.*}}) <{{.*}}pixels = 4 : i64, parallel = 1 : i64, activation = "Relu"}> {onnx_node_name = "conv1+relu1"}
// CHECK-SAME:      -> tensor<1x2x6x6x12xf32>
// CHECK-NOT:     onnx.Constant
// CHECK:         %[[C2:.*]] = "kernel.conv"(%[[C1]], %[[W]], %{{.*}}, %[[C1]]) <{{.*}}activation = "Relu"}> {onnx_node_name = "conv2+add+relu2"}
// CHECK:         %[[Y:.*]] = "kernel.unblock"(%[[C2]]) {onnx_node_name = "conv2+add+relu2 output"} : (tensor<1x2x6x6x12xf32>) -> tensor<1x24x6x6xf32>
// CHECK-NOT:     onnx.Relu
// CHECK-NOT:     onnx.Add
// CHECK:         func.return %[[Y]]

// -----

// Depthwise (group = C = M) with ReLU6 as Clip: weights packed [C/b, KH, KW, b],
// 40 channels blocked by 8; a stride-2 shortcut computed after the conv it is
// added to moves that conv down to the Add.
func.func @depthwise(%x: tensor<1x40x8x8xf32>) -> tensor<1x40x4x4xf32> {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<40x1x3x3xf32>}> {onnx_node_name = "w"} : () -> tensor<40x1x3x3xf32>
  %p = "onnx.Constant"() <{value = dense<1.0> : tensor<40x40x1x1xf32>}> {onnx_node_name = "p"} : () -> tensor<40x40x1x1xf32>
  %lo = "onnx.Constant"() <{value = dense<0.0> : tensor<f32>}> {onnx_node_name = "lo"} : () -> tensor<f32>
  %hi = "onnx.Constant"() <{value = dense<6.0> : tensor<f32>}> {onnx_node_name = "hi"} : () -> tensor<f32>
  %none = "onnx.NoValue"() : () -> none
  %d = "onnx.Conv"(%x, %w, %none) <{group = 40 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> {onnx_node_name = "dw"} : (tensor<1x40x8x8xf32>, tensor<40x1x3x3xf32>, none) -> tensor<1x40x4x4xf32>
  %s = "onnx.Conv"(%x, %p, %none) <{strides = array<i64: 2, 2>}> {onnx_node_name = "shortcut"} : (tensor<1x40x8x8xf32>, tensor<40x40x1x1xf32>, none) -> tensor<1x40x4x4xf32>
  %a = "onnx.Add"(%d, %s) {onnx_node_name = "add"} : (tensor<1x40x4x4xf32>, tensor<1x40x4x4xf32>) -> tensor<1x40x4x4xf32>
  %y = "onnx.Clip"(%a, %lo, %hi) {onnx_node_name = "relu6"} : (tensor<1x40x4x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x40x4x4xf32>
  func.return %y : tensor<1x40x4x4xf32>
}

// CHECK-LABEL: func.func @depthwise
// CHECK:         "onnx.Constant"() <{value = dense_resource<w_packed{{.*}}> : tensor<5x3x3x8xf32>}>
// CHECK:         %[[X:.*]] = "kernel.block"(%x) {onnx_node_name = "dw input"} : (tensor<1x40x8x8xf32>) -> tensor<1x5x8x8x8xf32>
// CHECK-NOT:     kernel.block
// CHECK:         %[[S:.*]] = "kernel.conv"(%[[X]], {{.*}}{onnx_node_name = "shortcut"}
// CHECK:         %[[D:.*]] = "kernel.conv"(%[[X]], %{{.*}}, %{{.*}}, %[[S]]) <{{.*}}group = 40 : i64{{.*}}activation = "Clip", clip_min = 0.000000e+00 : f32, clip_max = 6.000000e+00 : f32, in_place = 1 : i64}> {onnx_node_name = "dw+add+relu6"}
// CHECK:         "kernel.unblock"(%[[D]])

// -----

// A Tanh that is the only user of a convolution's result is its activation,
// so the pooling after it takes the blocked result; 6 output channels are one
// block of 6 whose weights have 8 lanes.
func.func @tanh(%x: tensor<1x1x6x6xf32>) -> tensor<1x6x2x2xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<6x1x3x3xf32>}> {onnx_node_name = "w"} : () -> tensor<6x1x3x3xf32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %none) {onnx_node_name = "conv"} : (tensor<1x1x6x6xf32>, tensor<6x1x3x3xf32>, none) -> tensor<1x6x4x4xf32>
  %t = "onnx.Tanh"(%c) {onnx_node_name = "tanh"} : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32>
  %y = "onnx.AveragePool"(%t) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> {onnx_node_name = "pool"} : (tensor<1x6x4x4xf32>) -> tensor<1x6x2x2xf32>
  func.return %y : tensor<1x6x2x2xf32>
}

// CHECK-LABEL: func.func @tanh
// CHECK:         "onnx.Constant"() <{value = dense_resource<w_packed{{.*}}> : tensor<1x1x3x3x8xf32>}>
// CHECK:         %[[C:.*]] = "kernel.conv"({{.*}}activation = "Tanh"}> {onnx_node_name = "conv+tanh"}
// CHECK-SAME:      -> tensor<1x1x4x4x6xf32>
// CHECK-NOT:     onnx.Tanh
// CHECK:         %[[P:.*]] = "kernel.pool"(%[[C]])
// CHECK:         "kernel.unblock"(%[[P]])

// -----

// A SiLU (Swish with alpha 1, as onnx-fuse-activations writes x * Sigmoid(x))
// that is the only user of a convolution's result is its activation, applied
// to each finished row; a Swish of another alpha is not.
func.func @silu(%x: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<8x8x1x1xf32>}> {onnx_node_name = "w"} : () -> tensor<8x8x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %none) {onnx_node_name = "conv"} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>, none) -> tensor<1x8x4x4xf32>
  %s = "onnx.Swish"(%c) <{alpha = 1.000000e+00 : f32}> {onnx_node_name = "silu"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %d = "onnx.Conv"(%x, %w, %none) {onnx_node_name = "conv2"} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>, none) -> tensor<1x8x4x4xf32>
  %t = "onnx.Swish"(%d) <{alpha = 2.000000e+00 : f32}> {onnx_node_name = "swish2"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %s, %t : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// CHECK-LABEL: func.func @silu
// CHECK:         "kernel.conv"({{.*}}activation = "Swish"}> {onnx_node_name = "conv+silu"}
// CHECK:         %[[D:.*]] = "kernel.conv"({{.*}}{onnx_node_name = "conv2"}
// CHECK-NOT:     activation
// CHECK:         "onnx.Swish"({{.*}}) <{alpha = 2.000000e+00 : f32}>
