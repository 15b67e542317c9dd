// RUN: xdsl-opt -p onnx-fuse-quantized %s | filecheck %s

// A QDQ Gemm (a fully connected layer) is the 1x1 convolution of a 1x1 image
// it stands for: x [N, K] viewed as [N, K, 1, 1], the int8 weights as
// [M, K, 1, 1] (B as is when transB, else transposed), the result viewed back
// as [N, M].
func.func @linear(%xq: tensor<2x3xi8>) -> tensor<2x2xi8> {
  %xs = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %xz = "onnx.Constant"() <{value = dense<3> : tensor<i8>}> : () -> tensor<i8>
  %wq = "onnx.Constant"() <{value = dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>}> : () -> tensor<2x3xi8>
  %ws = "onnx.Constant"() <{value = dense<[0.25, 0.125]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %bq = "onnx.Constant"() <{value = dense<[7, -7]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %bs = "onnx.Constant"() <{value = dense<[0.125, 0.0625]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<-128> : tensor<i8>}> : () -> tensor<i8>
  %none = "onnx.NoValue"() : () -> none
  %x = "onnx.DequantizeLinear"(%xq, %xs, %xz) : (tensor<2x3xi8>, tensor<f32>, tensor<i8>) -> tensor<2x3xf32>
  %w = "onnx.DequantizeLinear"(%wq, %ws, %none) {axis = 0 : i64} : (tensor<2x3xi8>, tensor<2xf32>, none) -> tensor<2x3xf32>
  %b = "onnx.DequantizeLinear"(%bq, %bs, %none) : (tensor<2xi32>, tensor<2xf32>, none) -> tensor<2xf32>
  %c = "onnx.Gemm"(%x, %w, %b) {transB = 1 : si64, onnx_node_name = "fc"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %y = "onnx.QuantizeLinear"(%c, %ys, %yz) : (tensor<2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<2x2xi8>
  func.return %y : tensor<2x2xi8>
}

// CHECK-LABEL: func.func @linear
// CHECK:         %[[W:.*]] = "onnx.Constant"() <{value = dense<{{.*}}1]], {{.*}}2]], {{.*}}3]]], {{.*}}4]], {{.*}}5]], {{.*}}6]]]]> : tensor<2x3x1x1xi8>}>
// CHECK:         %[[X:.*]] = "onnx.Reshape"(%xq, %{{.*}}) : (tensor<2x3xi8>, tensor<4xi64>) -> tensor<2x3x1x1xi8>
// CHECK:         %[[Y:.*]] = "onnx.QLinearConv"(%[[X]], %xs, %xz, %[[W]], %ws, %{{.*}}, %ys, %yz, %bq)
// CHECK-SAME:      kernel_shape = array<i64: 1, 1>
// CHECK-SAME:      -> tensor<2x2x1x1xi8>
// CHECK:         %[[FLAT:.*]] = "onnx.Reshape"(%[[Y]], %{{.*}}) : (tensor<2x2x1x1xi8>, tensor<2xi64>) -> tensor<2x2xi8>
// CHECK-NOT:     onnx.Gemm
// CHECK:         func.return %[[FLAT]]
