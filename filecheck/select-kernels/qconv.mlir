// RUN: xdsl-opt -p 'select-kernels{target=cortex-m4}' %s | filecheck %s --check-prefixes=CHECK,PAIRS
// RUN: xdsl-opt -p 'select-kernels{target=cortex-m0}' %s | filecheck %s --check-prefixes=CHECK,PAIRS
// RUN: xdsl-opt -p 'select-kernels{target=host}' %s | filecheck %s --check-prefixes=CHECK,HOST
// RUN: xdsl-opt -p 'select-kernels{target=host-portable}' %s | filecheck %s --check-prefixes=CHECK,HOST

// A QLinearConv with constant int8 weights is `kernel.qconv` on the Cortex-M
// targets (the M0's too, which has no float kernels). Its weights are packed
// into int32 words: taps in (kh, kw, c) order with 3 channels made 4, each
// word's bytes (0, 2, 1, 3); 3 output channels are padded to 4 rows. The
// bias is padded alike, and the multipliers are x_scale * w_scale / y_scale
// in float: 0.5 * 0.25 / 0.75 and 0.5 * 0.125 / 0.75.
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
// Taps (1, 2, 3, 0) are bytes (1, 3, 2, 0): word 0x00020301 = 131841; then
// 0x00050604 = 329220, and 0x00FEFDFF = 16711167 for (-1, -2, -3, 0).
// PAIRS:         %[[W:.*]] = "onnx.Constant"() <{value = dense<{{\[}}[131841], [329220], [16711167], [0]]> : tensor<4x1xi32>}>
// PAIRS:         %[[B:.*]] = "onnx.Constant"() <{value = dense<[10, 20, 30, 0]> : tensor<4xi32>}>
// PAIRS:         %[[S:.*]] = "onnx.Constant"() <{value = dense<[0.166666672, 0.0833333358, 0.166666672, 0.000000e+00]> : tensor<4xf32>}>
// PAIRS:         %[[Y:.*]] = "kernel.qconv"(%x, %[[W]], %[[B]], %[[S]])
// PAIRS-SAME:      x_zero_point = 3 : i64, y_zero_point = 128 : i64
// PAIRS-NOT:       form
// PAIRS-SAME:      -> tensor<1x3x5x5xui8>
// On the hosts a row of 3 taps is short: the float kernels compute the
// convolution exactly (no partial sum reaches 2^24), x - 3 as floats, the
// weights and bias as floats; then the multipliers, and QuantizeLinear by 1.
// HOST:          %[[ONE:.*]] = "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<f32>}>
// HOST:          %[[XF:.*]] = "onnx.DequantizeLinear"(%x, %[[ONE]], %xz) {onnx_node_name = "conv input"}
// HOST-SAME:       -> tensor<1x3x5x5xf32>
// HOST:          1.000000e+00, 4.000000e+00, -1.000000e+00]]], {{.*}}2.000000e+00, 5.000000e+00, -2.000000e+00]]], {{.*}}3.000000e+00, 6.000000e+00, -3.000000e+00]
// HOST:          dense<[1.000000e+01, 2.000000e+01, 3.000000e+01]>
// HOST:          %[[BLOCKED:.*]] = "kernel.block"(%[[XF]])
// HOST:          %[[SUM:.*]] = "kernel.conv"(%[[BLOCKED]]
// The Mul and QuantizeLinear run on the blocked sum (elementwise_layout.py):
// the unblock is of the bytes.
// HOST:          %[[S:.*]] = "onnx.Constant"() <{value = dense<{{.*}}0.166666672, 0.0833333358, 0.166666672{{.*}}> : tensor<1x1x1x1x3xf32>}>
// HOST:          %[[SCALED:.*]] = "onnx.Mul"(%[[SUM]], %[[S]])
// HOST:          %[[QB:.*]] = "onnx.QuantizeLinear"(%[[SCALED]], %[[ONE]], %yz)
// HOST-SAME:       -> tensor<1x1x5x5x3xui8>
// HOST:          %[[Y:.*]] = "kernel.unblock"(%[[QB]])
// HOST-SAME:       -> tensor<1x3x5x5xui8>
// CHECK-NOT:     onnx.QLinearConv
// CHECK:         func.return %[[Y]]

// A depthwise QLinearConv keeps its int8 taps, [C, KH * KW], and folds x's
// zero point into the bias: 10 - 3 * (1 + 2) = 1, 20 - 3 * (-4 + 5) = 17.
// The hosts take it on the float kernels.
func.func @depthwise(%x: tensor<1x2x5x5xi8>) -> tensor<1x2x5x5xi8> {
  %xs = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %xz = "onnx.Constant"() <{value = dense<3> : tensor<i8>}> : () -> tensor<i8>
  %w = "onnx.Constant"() <{value = dense<[[[[1, 2]]], [[[-4, 5]]]]> : tensor<2x1x1x2xi8>}> : () -> tensor<2x1x1x2xi8>
  %ws = "onnx.Constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
  %wz = "onnx.Constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<1> : tensor<i8>}> : () -> tensor<i8>
  %b = "onnx.Constant"() <{value = dense<[10, 20]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %y = "onnx.QLinearConv"(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, %b) {group = 2 : i64, pads = array<i64: 0, 0, 0, 1>, onnx_node_name = "dw"} : (tensor<1x2x5x5xi8>, tensor<f32>, tensor<i8>, tensor<2x1x1x2xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>, tensor<2xi32>) -> tensor<1x2x5x5xi8>
  func.return %y : tensor<1x2x5x5xi8>
}

// CHECK-LABEL: func.func @depthwise
// PAIRS:         %[[W:.*]] = "onnx.Constant"() <{value = dense<{{\[}}[1, 2], [-4, 5]]> : tensor<2x2xi8>}>
// PAIRS:         %[[B:.*]] = "onnx.Constant"() <{value = dense<[1, 17]> : tensor<2xi32>}>
// PAIRS:         "kernel.qconv"(%x, %[[W]], %[[B]], %{{[a-z_]+}})
// PAIRS-SAME:      group = 2 : i64
// HOST:          "kernel.conv"
// HOST-SAME:       group = 2 : i64
// CHECK-NOT:     onnx.QLinearConv

// A row of 512 taps: the hosts' kernel of byte rows. Its weights are int8,
// one row per output channel (512 ones), and x's zero point 3 is folded into
// the bias: 10 - 3 * 512 = -1526 and 20 - 3 * 512 = -1516.
func.func @long_row(%x: tensor<1x512x2x2xui8>) -> tensor<1x2x2x2xui8> {
  %xs = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %xz = "onnx.Constant"() <{value = dense<3> : tensor<ui8>}> : () -> tensor<ui8>
  %w = "onnx.Constant"() <{value = dense<1> : tensor<2x512x1x1xi8>}> : () -> tensor<2x512x1x1xi8>
  %ws = "onnx.Constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
  %wz = "onnx.Constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<128> : tensor<ui8>}> : () -> tensor<ui8>
  %b = "onnx.Constant"() <{value = dense<[10, 20]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %y = "onnx.QLinearConv"(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, %b) {onnx_node_name = "long"} : (tensor<1x512x2x2xui8>, tensor<f32>, tensor<ui8>, tensor<2x512x1x1xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>, tensor<2xi32>) -> tensor<1x2x2x2xui8>
  func.return %y : tensor<1x2x2x2xui8>
}

// CHECK-LABEL: func.func @long_row
// PAIRS:         "onnx.Constant"() <{value = dense_resource<w_words> : tensor<2x128xi32>}>
// HOST:          %[[W:.*]] = "onnx.Constant"() <{value = dense_resource<w_rows> : tensor<2x512xi8>}>
// HOST:          %[[B:.*]] = "onnx.Constant"() <{value = dense<[-1526, -1516]> : tensor<2xi32>}>
// HOST:          %[[S:.*]] = "onnx.Constant"() <{value = dense<0.166666672> : tensor<2xf32>}>
// HOST:          "kernel.qconv"(%x, %[[W]], %[[B]], %[[S]])
// HOST-SAME:       form = "rows"
// CHECK-NOT:     onnx.QLinearConv
