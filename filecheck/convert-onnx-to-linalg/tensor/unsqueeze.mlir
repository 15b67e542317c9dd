// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @unsqueeze(%x: tensor<3x4xf32>) -> tensor<1x3x4x1xf32> {
  %a = "onnx.Constant"() <{value = dense<[0, -1]> : tensor<2xi64>}> {onnx_node_name = "axes"} : () -> tensor<2xi64>
  %r = "onnx.Unsqueeze"(%x, %a) {onnx_node_name = "unsqueeze"} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<1x3x4x1xf32>
  func.return %r : tensor<1x3x4x1xf32>
}

// CHECK-LABEL: func.func @unsqueeze
// CHECK:         memref.expand_shape %{{.*}} {{\[}}[0 : i64, 1 : i64], [2 : i64, 3 : i64]] output_shape [1, 3, 4, 1] {onnxc.comment = "Unsqueeze unsqueeze"} : memref<3x4xf32> into memref<1x3x4x1xf32>

// -----

func.func @unsqueeze_scalar(%x: tensor<f32>) -> tensor<1xf32> {
  %a = "onnx.Constant"() <{value = dense<[0]> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.Unsqueeze"(%x, %a) {onnx_node_name = "unsqueeze"} : (tensor<f32>, tensor<1xi64>) -> tensor<1xf32>
  func.return %r : tensor<1xf32>
}

// CHECK-LABEL: func.func @unsqueeze_scalar
// CHECK:         memref.expand_shape %{{.*}} [] output_shape [1] {{.*}} : memref<f32> into memref<1xf32>
