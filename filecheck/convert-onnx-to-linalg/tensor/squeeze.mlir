// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @squeeze(%x: tensor<1x3x1x4xf32>) -> tensor<3x1x4xf32> {
  %a = "onnx.Constant"() <{value = dense<[0]> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.Squeeze"(%x, %a) {onnx_node_name = "squeeze"} : (tensor<1x3x1x4xf32>, tensor<1xi64>) -> tensor<3x1x4xf32>
  func.return %r : tensor<3x1x4xf32>
}

// CHECK-LABEL: func.func @squeeze
// CHECK:         memref.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64], [2 : i64], [3 : i64]] {onnxc.comment = "Squeeze squeeze"} : memref<1x3x1x4xf32> into memref<3x1x4xf32>

// -----

func.func @squeeze_all(%x: tensor<1x3x1x4xf32>) -> tensor<3x4xf32> {
  %n = "onnx.NoValue"() : () -> none
  %r = "onnx.Squeeze"(%x, %n) {onnx_node_name = "squeeze"} : (tensor<1x3x1x4xf32>, none) -> tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}

// CHECK-LABEL: func.func @squeeze_all
// CHECK:         memref.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64], [2 : i64, 3 : i64]] {{.*}} : memref<1x3x1x4xf32> into memref<3x4xf32>
