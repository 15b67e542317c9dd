// RUN: xdsl-opt -p onnx-fuse-quantized %s | filecheck %s

// The QDQ form of a quantized convolution, as onnxruntime's quantizer writes
// it (int8 weights per output channel with zero points 0, an int32 bias at
// scale x_scale * w_scale), is the one QLinearConv it stands for: the int8
// weights and bias are its operands, the DequantizeLinears and the float
// Conv are gone.
func.func @fused(%xq: tensor<1x2x4x4xi8>) -> tensor<1x2x4x4xi8> {
  %xs = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %xz = "onnx.Constant"() <{value = dense<3> : tensor<i8>}> : () -> tensor<i8>
  %wq = "onnx.Constant"() <{value = dense<[[[[1]], [[-2]]], [[[3]], [[4]]]]> : tensor<2x2x1x1xi8>}> : () -> tensor<2x2x1x1xi8>
  %ws = "onnx.Constant"() <{value = dense<[0.25, 0.125]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %wz = "onnx.Constant"() <{value = dense<0> : tensor<2xi8>}> : () -> tensor<2xi8>
  %bq = "onnx.Constant"() <{value = dense<[7, -7]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %bs = "onnx.Constant"() <{value = dense<[0.125, 0.0625]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<-128> : tensor<i8>}> : () -> tensor<i8>
  %x = "onnx.DequantizeLinear"(%xq, %xs, %xz) : (tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xf32>
  %w = "onnx.DequantizeLinear"(%wq, %ws, %wz) {axis = 0 : i64} : (tensor<2x2x1x1xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x2x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %b = "onnx.DequantizeLinear"(%bq, %bs, %none) : (tensor<2xi32>, tensor<2xf32>, none) -> tensor<2xf32>
  %c = "onnx.Conv"(%x, %w, %b) {onnx_node_name = "conv"} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y = "onnx.QuantizeLinear"(%c, %ys, %yz) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  func.return %y : tensor<1x2x4x4xi8>
}

// CHECK-LABEL: func.func @fused
// CHECK-NOT:     onnx.DequantizeLinear
// CHECK:         %[[Y:.*]] = "onnx.QLinearConv"(%xq, %xs, %xz, %wq, %ws, %{{.*}}, %ys, %yz, %bq) {onnx_node_name = "conv"}
// CHECK-SAME:      -> tensor<1x2x4x4xi8>
// CHECK-NOT:     onnx.Conv
// CHECK-NOT:     onnx.QuantizeLinear
// CHECK:         func.return %[[Y]]


// A chain whose float result has another use, or whose bias is not at scale
// x_scale * w_scale, stays as it is (the float kernels take it).
func.func @kept(%xq: tensor<1x2x4x4xi8>) -> (tensor<1x2x4x4xi8>, tensor<1x2x4x4xi8>) {
  %xs = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %wq = "onnx.Constant"() <{value = dense<1> : tensor<2x2x1x1xi8>}> : () -> tensor<2x2x1x1xi8>
  %ws = "onnx.Constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
  %bq = "onnx.Constant"() <{value = dense<[7, -7]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %bs = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
  %none = "onnx.NoValue"() : () -> none
  %x = "onnx.DequantizeLinear"(%xq, %xs, %none) : (tensor<1x2x4x4xi8>, tensor<f32>, none) -> tensor<1x2x4x4xf32>
  %w = "onnx.DequantizeLinear"(%wq, %ws, %none) : (tensor<2x2x1x1xi8>, tensor<f32>, none) -> tensor<2x2x1x1xf32>
  %b = "onnx.DequantizeLinear"(%bq, %bs, %none) : (tensor<2xi32>, tensor<f32>, none) -> tensor<2xf32>
  %c1 = "onnx.Conv"(%x, %w, %none) {onnx_node_name = "shared"} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, none) -> tensor<1x2x4x4xf32>
  %r = "onnx.Relu"(%c1) : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y1 = "onnx.QuantizeLinear"(%c1, %ys, %yz) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  %c2 = "onnx.Conv"(%x, %w, %b) {onnx_node_name = "bias_scale"} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y2 = "onnx.QuantizeLinear"(%c2, %ys, %yz) : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4xi8>
  func.return %y1, %y2 : tensor<1x2x4x4xi8>, tensor<1x2x4x4xi8>
}

// CHECK-LABEL: func.func @kept
// CHECK-NOT:     onnx.QLinearConv
// CHECK:         "onnx.Conv"{{.*}}onnx_node_name = "shared"
// CHECK:         "onnx.Conv"{{.*}}onnx_node_name = "bias_scale"
