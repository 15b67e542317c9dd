// RUN: xdsl-opt -p onnx-fuse-quantized %s | filecheck %s

// A quantized AveragePool in QDQ form is one kernel.qaverage_pool of the
// int8 tensor: AveragePool's attributes, the scales and zero points (one
// constant each; an absent zero point is 0) as attributes. No float tensor
// of the input's size is left.
func.func @pool(%a: tensor<1x4x6x6xi8>) -> tensor<1x4x3x3xi8> {
  %as = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<-7> : tensor<i8>}> : () -> tensor<i8>
  %none = "onnx.NoValue"() : () -> none
  %x = "onnx.DequantizeLinear"(%a, %as, %none) : (tensor<1x4x6x6xi8>, tensor<f32>, none) -> tensor<1x4x6x6xf32>
  %p = "onnx.AveragePool"(%x) <{kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = 1 : i64}> {onnx_node_name = "pool"} : (tensor<1x4x6x6xf32>) -> tensor<1x4x3x3xf32>
  %q = "onnx.QuantizeLinear"(%p, %ys, %yz) : (tensor<1x4x3x3xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x3x3xi8>
  func.return %q : tensor<1x4x3x3xi8>
}

// CHECK-LABEL: func.func @pool
// CHECK:         %[[Q:.*]] = "kernel.qaverage_pool"(%a) <{
// CHECK-SAME:      kernel_shape = array<i64: 3, 3>
// CHECK-SAME:      strides = array<i64: 2, 2>
// CHECK-SAME:      count_include_pad = 1 : i64
// CHECK-SAME:      x_scale = 5.000000e-01 : f32, x_zero_point = 0 : i64, y_scale = 7.500000e-01 : f32, y_zero_point = -7 : i64}>
// CHECK-SAME:      {onnx_node_name = "pool"} : (tensor<1x4x6x6xi8>) -> tensor<1x4x3x3xi8>
// CHECK-NOT:     onnx.AveragePool
// CHECK-NOT:     onnx.DequantizeLinear
// CHECK:         func.return %[[Q]]

// A pooled result read twice (here also returned as floats) stays float,
// and so does a per-axis DequantizeLinear.
func.func @kept(%a: tensor<1x2x4x4xui8>) -> (tensor<1x2x2x2xui8>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xui8>) {
  %s = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %z = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %ss = "onnx.Constant"() <{value = dense<[0.5, 0.25]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zs = "onnx.Constant"() <{value = dense<[128, 120]> : tensor<2xui8>}> : () -> tensor<2xui8>
  %x = "onnx.DequantizeLinear"(%a, %s, %z) : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %p = "onnx.AveragePool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> {onnx_node_name = "twice"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %q = "onnx.QuantizeLinear"(%p, %s, %z) : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xui8>
  %y = "onnx.DequantizeLinear"(%a, %ss, %zs) <{axis = 1 : i64}> : (tensor<1x2x4x4xui8>, tensor<2xf32>, tensor<2xui8>) -> tensor<1x2x4x4xf32>
  %r = "onnx.AveragePool"(%y) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> {onnx_node_name = "per_axis"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  %t = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<1x2x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x2x2xui8>
  func.return %q, %p, %t : tensor<1x2x2x2xui8>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xui8>
}

// CHECK-LABEL: func.func @kept
// CHECK-NOT:     kernel.qaverage_pool
// CHECK:         "onnx.AveragePool"({{.*}}) {{.*}}onnx_node_name = "twice"
// CHECK:         "onnx.AveragePool"({{.*}}) {{.*}}onnx_node_name = "per_axis"
// CHECK-NOT:     kernel.qaverage_pool
