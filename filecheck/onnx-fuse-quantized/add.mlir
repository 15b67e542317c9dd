// RUN: xdsl-opt -p onnx-fuse-quantized %s | filecheck %s

// A quantized Add in QDQ form (a residual connection) is one kernel.qadd of
// the int8 tensors and their parameters: no float tensor between them.
func.func @residual(%a: tensor<1x4x3x3xi8>, %b: tensor<1x4x3x3xi8>) -> tensor<1x4x3x3xi8> {
  %as = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %az = "onnx.Constant"() <{value = dense<3> : tensor<i8>}> : () -> tensor<i8>
  %bs = "onnx.Constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<-128> : tensor<i8>}> : () -> tensor<i8>
  %none = "onnx.NoValue"() : () -> none
  %x = "onnx.DequantizeLinear"(%a, %as, %az) : (tensor<1x4x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x3x3xf32>
  %y = "onnx.DequantizeLinear"(%b, %bs, %none) : (tensor<1x4x3x3xi8>, tensor<f32>, none) -> tensor<1x4x3x3xf32>
  %s = "onnx.Add"(%x, %y) {onnx_node_name = "add"} : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %q = "onnx.QuantizeLinear"(%s, %ys, %yz) : (tensor<1x4x3x3xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x3x3xi8>
  func.return %q : tensor<1x4x3x3xi8>
}

// CHECK-LABEL: func.func @residual
// CHECK:         %[[Q:.*]] = "kernel.qadd"(%a, %as, %az, %b, %bs, %{{.*}}, %ys, %yz) {onnx_node_name = "add"}
// CHECK-SAME:      -> tensor<1x4x3x3xi8>
// CHECK-NOT:     onnx.Add
// CHECK-NOT:     onnx.DequantizeLinear
// CHECK:         func.return %[[Q]]

// With broadcasting (a per-channel addend), it stays as it is.
func.func @broadcast(%a: tensor<1x4x3x3xi8>, %b: tensor<1x4x1x1xi8>) -> tensor<1x4x3x3xi8> {
  %s1 = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %z = "onnx.Constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
  %x = "onnx.DequantizeLinear"(%a, %s1, %z) : (tensor<1x4x3x3xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x3x3xf32>
  %y = "onnx.DequantizeLinear"(%b, %s1, %z) : (tensor<1x4x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<1x4x1x1xf32>
  %s = "onnx.Add"(%x, %y) : (tensor<1x4x3x3xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x3xf32>
  %q = "onnx.QuantizeLinear"(%s, %s1, %z) : (tensor<1x4x3x3xf32>, tensor<f32>, tensor<i8>) -> tensor<1x4x3x3xi8>
  func.return %q : tensor<1x4x3x3xi8>
}

// CHECK-LABEL: func.func @broadcast
// CHECK:         "onnx.Add"
// CHECK-NOT:     kernel.qadd
