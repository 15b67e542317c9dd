// RUN: xdsl-opt -p 'select-kernels{target=cortex-m4}' %s | filecheck %s

// A 1-D convolution is a 2-D one of height 1: its input reshaped to
// [N, C, 1, L], its window lifted (kernel [1, 3], pads [0, 1, 0, 2], strides
// [1, 2]), its result reshaped back; the Relu after it still fuses, through
// the reshape, into the kernel.
func.func @conv1d(%x: tensor<1x4x9xf32>) -> tensor<1x8x5xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<8x4x3xf32>}> {onnx_node_name = "w"} : () -> tensor<8x4x3xf32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %none) <{pads = array<i64: 1, 2>, strides = array<i64: 2>}> {onnx_node_name = "conv"} : (tensor<1x4x9xf32>, tensor<8x4x3xf32>, none) -> tensor<1x8x5xf32>
  %y = "onnx.Relu"(%c) {onnx_node_name = "relu"} : (tensor<1x8x5xf32>) -> tensor<1x8x5xf32>
  func.return %y : tensor<1x8x5xf32>
}

// CHECK-LABEL: func.func @conv1d
// CHECK:         %[[X:.*]] = "onnx.Reshape"(%x, %{{.*}}) : (tensor<1x4x9xf32>, tensor<4xi64>) -> tensor<1x4x1x9xf32>
// CHECK:         %[[B:.*]] = "kernel.block"(%[[X]])
// CHECK:         %[[Y:.*]] = "kernel.conv"(%[[B]], {{.*}}) <{strides = array<i64: 1, 2>, {{.*}}, pads = array<i64: 0, 1, 0, 2>, kernel_shape = array<i64: 1, 3>, {{.*}}activation = "Relu"}>
// CHECK:         %[[U:.*]] = "kernel.unblock"(%[[Y]]) {{.*}} -> tensor<1x8x1x5xf32>
// CHECK:         "onnx.Reshape"(%[[U]], %{{.*}}) : (tensor<1x8x1x5xf32>, tensor<3xi64>) -> tensor<1x8x5xf32>
// CHECK-NOT:     onnx.Relu
