// RUN: xdsl-opt -p 'select-kernels{target=cortex-m4}' %s | filecheck %s

// Cortex-M4 blocks 4 output channels x 4 pixels with the lane loop written
// out (`unrolled`). Its lanes are scalars, so a channel block is the largest
// divisor of the channel count up to 4 and never padded: 6 channels are two
// blocks of 3, 10 are five blocks of 2 (the packed weights hold exactly the
// convolution's, and the blocked activations are no larger than NCHW).
func.func @convs(%x: tensor<1x1x8x8xf32>) -> tensor<1x10x6x6xf32> {
  %w1 = "onnx.Constant"() <{value = dense<0.5> : tensor<6x1x1x1xf32>}> {onnx_node_name = "w1"} : () -> tensor<6x1x1x1xf32>
  %w2 = "onnx.Constant"() <{value = dense<0.5> : tensor<10x6x3x3xf32>}> {onnx_node_name = "w2"} : () -> tensor<10x6x3x3xf32>
  %none = "onnx.NoValue"() : () -> none
  %a = "onnx.Conv"(%x, %w1, %none) {onnx_node_name = "conv1"} : (tensor<1x1x8x8xf32>, tensor<6x1x1x1xf32>, none) -> tensor<1x6x8x8xf32>
  %y = "onnx.Conv"(%a, %w2, %none) {onnx_node_name = "conv2"} : (tensor<1x6x8x8xf32>, tensor<10x6x3x3xf32>, none) -> tensor<1x10x6x6xf32>
  func.return %y : tensor<1x10x6x6xf32>
}

// CHECK-LABEL: func.func @convs
// CHECK:         "onnx.Constant"() <{value = {{.*}} : tensor<2x1x1x1x3xf32>}> {onnx_node_name = "w1_packed"}
// CHECK:         %[[C1:.*]] = "kernel.conv"({{.*}}) <{{.*}}pixels = 4 : i64, unrolled = 1 : i64}> {onnx_node_name = "conv1"}
// CHECK-SAME:      -> tensor<1x2x8x8x3xf32>
// CHECK:         "onnx.Constant"() <{value = dense_resource<w2_packed> : tensor<5x6x3x3x2xf32>}>
// CHECK:         %[[C2:.*]] = "kernel.conv"(%[[C1]], {{.*}}) <{{.*}}unrolled = 1 : i64}> {onnx_node_name = "conv2"}
// CHECK-SAME:      -> tensor<1x5x6x6x2xf32>
// CHECK:         "kernel.unblock"(%[[C2]])
