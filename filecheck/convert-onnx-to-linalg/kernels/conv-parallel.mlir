// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// A convolution marked `parallel`: its loop over output blocks is marked
// onnxc.parallel (split over threads in a build with them), and nothing
// inside it is.
func.func @blocks(%x: tensor<1x1x6x6x8xf32>) -> tensor<1x2x6x6x8xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<2x8x1x1x8xf32>}> {onnx_node_name = "w"} : () -> tensor<2x8x1x1x8xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "kernel.conv"(%x, %w, %none, %none) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, kernel_shape = array<i64: 1, 1>, group = 1 : i64, pixels = 4 : i64, parallel = 1 : i64}> {onnx_node_name = "conv"} : (tensor<1x1x6x6x8xf32>, tensor<2x8x1x1x8xf32>, none, none) -> tensor<1x2x6x6x8xf32>
  func.return %y : tensor<1x2x6x6x8xf32>
}

// CHECK-LABEL: func.func @blocks
// CHECK:         } {onnxc.comment = "Conv conv", onnxc.parallel}
// CHECK-NEXT:    func.return

// -----

// One output block: the loop over the rows whose taps lie inside the input
// is split instead (the border rows, one each here, run before and after
// it, unmarked).
func.func @rows(%x: tensor<1x1x6x6x8xf32>) -> tensor<1x1x6x6x8xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<1x8x3x3x8xf32>}> {onnx_node_name = "w"} : () -> tensor<1x8x3x3x8xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "kernel.conv"(%x, %w, %none, %none) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_shape = array<i64: 3, 3>, group = 1 : i64, pixels = 4 : i64, parallel = 1 : i64}> {onnx_node_name = "conv"} : (tensor<1x1x6x6x8xf32>, tensor<1x8x3x3x8xf32>, none, none) -> tensor<1x1x6x6x8xf32>
  func.return %y : tensor<1x1x6x6x8xf32>
}

// CHECK-LABEL: func.func @rows
// CHECK:         } {onnxc.comment = "Conv conv", onnxc.parallel}
// CHECK-NOT:     onnxc.parallel
