// RUN: xdsl-opt %s | xdsl-opt | filecheck %s
// RUN: xdsl-opt --print-op-generic %s | xdsl-opt | filecheck %s

// The onnx dialect's textual form survives a print-parse cycle: operands,
// optional inputs as `none`, properties spelled as in the spec, resources.

// CHECK-LABEL: func.func @conv_relu
func.func @conv_relu(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // CHECK: %[[W:.*]] = "onnx.Constant"() <{value = dense_resource<w> : tensor<4x3x3x3xf32>}> {onnx_node_name = "w"} : () -> tensor<4x3x3x3xf32>
  %w = "onnx.Constant"() <{value = dense_resource<w> : tensor<4x3x3x3xf32>}> {onnx_node_name = "w"} : () -> tensor<4x3x3x3xf32>
  // CHECK: %[[NONE:.*]] = "onnx.NoValue"() : () -> none
  %n = "onnx.NoValue"() : () -> none
  // CHECK: %[[C:.*]] = "onnx.Conv"(%{{.*}}, %[[W]], %[[NONE]]) <{auto_pad = "NOTSET", group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}> {onnx_node_name = "conv1"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  %c = "onnx.Conv"(%x, %w, %n) <{auto_pad = "NOTSET", group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}> {onnx_node_name = "conv1"} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
  // CHECK: "onnx.LeakyRelu"(%[[C]]) <{alpha = 1.000000e-01 : f32}>
  %r = "onnx.LeakyRelu"(%c) <{alpha = 1.000000e-01 : f32}> : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  func.return %r : tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func.func @variadic_and_strings
func.func @variadic_and_strings(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  // CHECK: "onnx.Concat"(%{{.*}}, %{{.*}}) <{axis = 1 : i64}> : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %c = "onnx.Concat"(%a, %b) <{axis = 1 : i64}> : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  func.return %c : tensor<2x8xf32>
}

// CHECK-LABEL: func.func @optional_output
func.func @optional_output(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // CHECK: "onnx.MaxPool"(%{{.*}}) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, none)
  %y, %i = "onnx.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, none)
  func.return %y : tensor<1x1x2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f0000803f"
    }
  }
#-}
