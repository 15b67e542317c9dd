// RUN: xdsl-opt -p 'select-kernels{target=cortex-m4}' %s | filecheck %s

// A BatchNormalization after a convolution with constant weights folds into
// them: s = scale / sqrt(var + epsilon) = 2 / sqrt(3 + 1) = 1, so the weights
// (0.5) stay 0.5 and the bias is (0 - mean) * s + bias = -1 + 0.25 = -0.75;
// the convolution is then one kernel, named after both nodes.
func.func @conv_bn(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<4x4x1x1xf32>}> {onnx_node_name = "w"} : () -> tensor<4x4x1x1xf32>
  %scale = "onnx.Constant"() <{value = dense<2.0> : tensor<4xf32>}> {onnx_node_name = "scale"} : () -> tensor<4xf32>
  %bias = "onnx.Constant"() <{value = dense<0.25> : tensor<4xf32>}> {onnx_node_name = "bias"} : () -> tensor<4xf32>
  %mean = "onnx.Constant"() <{value = dense<1.0> : tensor<4xf32>}> {onnx_node_name = "mean"} : () -> tensor<4xf32>
  %var = "onnx.Constant"() <{value = dense<3.0> : tensor<4xf32>}> {onnx_node_name = "var"} : () -> tensor<4xf32>
  %none = "onnx.NoValue"() : () -> none
  %a = "onnx.Conv"(%x, %w, %none) {onnx_node_name = "conv"} : (tensor<1x4x6x6xf32>, tensor<4x4x1x1xf32>, none) -> tensor<1x4x6x6xf32>
  %y, %m, %v = "onnx.BatchNormalization"(%a, %scale, %bias, %mean, %var) <{epsilon = 1.0 : f32}> {onnx_node_name = "bn"} : (tensor<1x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x6x6xf32>, none, none)
  func.return %y : tensor<1x4x6x6xf32>
}

// CHECK-LABEL: func.func @conv_bn
// CHECK-NOT:     onnx.BatchNormalization
// CHECK:         "onnx.Constant"() <{value = dense<-7.500000e-01> : tensor<4xf32>}>
// CHECK:         "kernel.conv"({{.*}}) {{.*}} {onnx_node_name = "conv+bn"}
// CHECK-NOT:     onnx.BatchNormalization
