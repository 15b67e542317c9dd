// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @flatten(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %r = "onnx.Flatten"(%x) <{axis = 1 : i64}> {onnx_node_name = "flatten"} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  func.return %r : tensor<2x12xf32>
}

// CHECK-LABEL: func.func @flatten
// CHECK:         memref.collapse_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64]] {onnxc.comment = "Flatten flatten"} : memref<2x3x4xf32> into memref<2x12xf32>

// -----

func.func @flatten_axis0(%x: tensor<2x3xf32>) -> tensor<1x6xf32> {
  %r = "onnx.Flatten"(%x) <{axis = 0 : i64}> {onnx_node_name = "flatten"} : (tensor<2x3xf32>) -> tensor<1x6xf32>
  func.return %r : tensor<1x6xf32>
}

// CHECK-LABEL: func.func @flatten_axis0
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64]] {{.*}} : memref<2x3xf32> into memref<6xf32>
// CHECK-NEXT:    memref.expand_shape %[[FLAT]] {{\[}}[0 : i64, 1 : i64]] output_shape [1, 6] {{.*}} : memref<6xf32> into memref<1x6xf32>
