// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @slice(%x: tensor<5x6xf32>) -> tensor<2x3xf32> {
  %starts = "onnx.Constant"() <{value = dense<[1, -1]> : tensor<2xi64>}> {onnx_node_name = "starts"} : () -> tensor<2xi64>
  %ends = "onnx.Constant"() <{value = dense<[9223372036854775807, -9223372036854775808]> : tensor<2xi64>}> {onnx_node_name = "ends"} : () -> tensor<2xi64>
  %axes = "onnx.Constant"() <{value = dense<[0, 1]> : tensor<2xi64>}> {onnx_node_name = "axes"} : () -> tensor<2xi64>
  %steps = "onnx.Constant"() <{value = dense<[2, -2]> : tensor<2xi64>}> {onnx_node_name = "steps"} : () -> tensor<2xi64>
  %r = "onnx.Slice"(%x, %starts, %ends, %axes, %steps) {onnx_node_name = "slice"} : (tensor<5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @slice
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (((d0 * 2) + 1), ((d1 * -2) + 5))>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : memref<5x6xf32>) outs(%{{.*}} : memref<2x3xf32>) attrs = {onnxc.comment = "Slice slice"}

// -----

func.func @slice_default_axes(%x: tensor<5x6xf32>) -> tensor<3x6xf32> {
  %starts = "onnx.Constant"() <{value = dense<[1]> : tensor<1xi64>}> {onnx_node_name = "starts"} : () -> tensor<1xi64>
  %ends = "onnx.Constant"() <{value = dense<[-1]> : tensor<1xi64>}> {onnx_node_name = "ends"} : () -> tensor<1xi64>
  %n = "onnx.NoValue"() : () -> none
  %r = "onnx.Slice"(%x, %starts, %ends, %n, %n) {onnx_node_name = "slice"} : (tensor<5x6xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<3x6xf32>
  func.return %r : tensor<3x6xf32>
}

// CHECK-LABEL: func.func @slice_default_axes
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ((d0 + 1), d1)>, affine_map<(d0, d1) -> (d0, d1)>]
