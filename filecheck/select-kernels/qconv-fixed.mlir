// RUN: xdsl-opt -p 'select-kernels{target=cortex-m0 requantize=fixed}' %s | filecheck %s
// RUN: xdsl-opt -p 'select-kernels{target=cortex-m4 requantize=fixed}' %s | filecheck %s

// With requantize=fixed, kernel.qconv's multipliers are int32 (mantissa,
// right shift) pairs: 0.5 * 0.25 / 0.75 = 1431655808 * 2^-33 and
// 0.5 * 0.125 / 0.75 = 1431655808 * 2^-34 (the padding row's 0 is 0 * 2^-31).
func.func @qconv(%x: tensor<1x3x5x5xui8>) -> tensor<1x3x5x5xui8> {
  %xs = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %xz = "onnx.Constant"() <{value = dense<3> : tensor<ui8>}> : () -> tensor<ui8>
  %w = "onnx.Constant"() <{value = dense<[[[[1]], [[2]], [[3]]], [[[4]], [[5]], [[6]]], [[[-1]], [[-2]], [[-3]]]]> : tensor<3x3x1x1xi8>}> : () -> tensor<3x3x1x1xi8>
  %ws = "onnx.Constant"() <{value = dense<[0.25, 0.125, 0.25]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %wz = "onnx.Constant"() <{value = dense<0> : tensor<3xi8>}> : () -> tensor<3xi8>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %b = "onnx.Constant"() <{value = dense<[10, 20, 30]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %y = "onnx.QLinearConv"(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, %b) {onnx_node_name = "conv"} : (tensor<1x3x5x5xui8>, tensor<f32>, tensor<ui8>, tensor<3x3x1x1xi8>, tensor<3xf32>, tensor<3xi8>, tensor<f32>, tensor<ui8>, tensor<3xi32>) -> tensor<1x3x5x5xui8>
  func.return %y : tensor<1x3x5x5xui8>
}

// CHECK-LABEL: func.func @qconv
// CHECK:         %[[S:.*]] = "onnx.Constant"() <{value = dense<{{\[}}[1431655808, 33], [1431655808, 34], [1431655808, 33], [0, 31]]> : tensor<4x2xi32>}>
// CHECK:         %[[Y:.*]] = "kernel.qconv"(%x, %{{.*}}, %{{.*}}, %[[S]])
// CHECK-SAME:      -> tensor<1x3x5x5xui8>
// CHECK:         func.return %[[Y]]
