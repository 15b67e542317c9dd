// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %s = "onnx.Constant"() <{value = dense<[4, -1]> : tensor<2xi64>}> {onnx_node_name = "shape"} : () -> tensor<2xi64>
  %r = "onnx.Reshape"(%x, %s) {onnx_node_name = "reshape"} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  func.return %r : tensor<4x6xf32>
}

// CHECK-LABEL: func.func @reshape
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64, 2 : i64]] {{.*}} : memref<2x3x4xf32> into memref<24xf32>
// CHECK-NEXT:    memref.expand_shape %[[FLAT]] {{\[}}[0 : i64, 1 : i64]] output_shape [4, 6] {onnxc.comment = "Reshape reshape"} : memref<24xf32> into memref<4x6xf32>

// -----

func.func @reshape_zero(%x: tensor<2x3x4xf32>) -> tensor<2x3x2x2xf32> {
  %s = "onnx.Constant"() <{value = dense<[0, 0, 2, -1]> : tensor<4xi64>}> {onnx_node_name = "shape"} : () -> tensor<4xi64>
  %r = "onnx.Reshape"(%x, %s) {onnx_node_name = "reshape"} : (tensor<2x3x4xf32>, tensor<4xi64>) -> tensor<2x3x2x2xf32>
  func.return %r : tensor<2x3x2x2xf32>
}

// CHECK-LABEL: func.func @reshape_zero
// CHECK:         memref.expand_shape %{{.*}} {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] output_shape [2, 3, 2, 2] {{.*}} : memref<2x3x4xf32> into memref<2x3x2x2xf32>

// -----

func.func @reshape_allowzero(%x: tensor<0x4xf32>) -> tensor<4x0xf32> {
  %s = "onnx.Constant"() <{value = dense<[4, 0]> : tensor<2xi64>}> {onnx_node_name = "shape"} : () -> tensor<2xi64>
  %r = "onnx.Reshape"(%x, %s) <{allowzero = 1 : i64}> {onnx_node_name = "reshape"} : (tensor<0x4xf32>, tensor<2xi64>) -> tensor<4x0xf32>
  func.return %r : tensor<4x0xf32>
}

// CHECK-LABEL: func.func @reshape_allowzero
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{.*}} : memref<0x4xf32> into memref<0xf32>
// CHECK-NEXT:    memref.expand_shape %[[FLAT]] {{.*}} : memref<0xf32> into memref<4x0xf32>

// -----

func.func @reshape_to_scalar(%x: tensor<1x1xf32>) -> tensor<f32> {
  %s = "onnx.Constant"() <{value = dense<> : tensor<0xi64>}> {onnx_node_name = "shape"} : () -> tensor<0xi64>
  %r = "onnx.Reshape"(%x, %s) {onnx_node_name = "reshape"} : (tensor<1x1xf32>, tensor<0xi64>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// CHECK-LABEL: func.func @reshape_to_scalar
// CHECK:         memref.collapse_shape %{{.*}} [] {{.*}} : memref<1x1xf32> into memref<f32>
