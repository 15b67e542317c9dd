// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %r = "onnx.Transpose"(%x) <{perm = array<i64: 2, 0, 1>}> {onnx_node_name = "transpose"} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  func.return %r : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2, d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : memref<2x3x4xf32>) outs(%[[OUT:.*]] : memref<4x2x3xf32>) attrs = {onnxc.comment = "Transpose transpose"}
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32

// -----

func.func @transpose_default(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %r = "onnx.Transpose"(%x) {onnx_node_name = "transpose"} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @transpose_default
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>]
