// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// The integer kernel: for each pair of output pixels (9 pixels: 4 pairs and
// a last one), their windows are gathered into two columns of an int32
// scratch, channel pairs (x - 3) packed into one word per tap and pair
// (padding taps 0); then each pair of output channels (3 channels: one pair
// and a last one) runs a 2 x 2 block of int32 accumulators, started at the
// bias, over the weight words: each word widened into its two int16 pairs,
// each pair met with a column's in one `onnxc.dot2`. Each sum is requantized
// as it is stored: times the channel's multiplier in float, clamped, rounded
// half to even (1.5 * 2^23), plus y's zero point.
func.func @qconv(%x: tensor<1x2x3x3xi8>) -> tensor<1x3x3x3xi8> {
  %w = "onnx.Constant"() <{value = dense<16909060> : tensor<4x5xi32>}> {onnx_node_name = "w"} : () -> tensor<4x5xi32>
  %b = "onnx.Constant"() <{value = dense<[1, 2, 3, 0]> : tensor<4xi32>}> {onnx_node_name = "b"} : () -> tensor<4xi32>
  %s = "onnx.Constant"() <{value = dense<0.125> : tensor<4xf32>}> {onnx_node_name = "s"} : () -> tensor<4xf32>
  %y = "kernel.qconv"(%x, %w, %b, %s) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_shape = array<i64: 3, 3>, x_zero_point = 3 : i64, y_zero_point = -7 : i64}> {onnx_node_name = "conv"} : (tensor<1x2x3x3xi8>, tensor<4x5xi32>, tensor<4xi32>, tensor<4xf32>) -> tensor<1x3x3x3xi8>
  func.return %y : tensor<1x3x3x3xi8>
}

// CHECK-LABEL: func.func @qconv
// CHECK:         %[[COLUMNS:.*]] = memref.alloc() : memref<2x10xi32>
// The tenth word of each column (taps 9 x 1 pair, rounded up to 10) is 0 once.
// CHECK:         memref.store %{{.*}}, %[[COLUMNS]][%{{.*}}, %{{.*}}] : memref<2x10xi32>
// CHECK:         scf.for
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// A tap of a column: in the input, the pair (x[c] - 3, x[c + 1] - 3); else 0.
// CHECK:             scf.if %{{.*}} {
// CHECK:               memref.load %{{.*}} : memref<1x2x3x3xi8>
// CHECK:               arith.extsi %{{.*}} : i8 to i32
// CHECK:               arith.subi
// CHECK:               %[[LOW:.*]] = arith.andi %{{.*}}, %{{.*}} : i32
// CHECK:               %[[HIGH:.*]] = arith.shli %{{.*}}, %{{.*}} : i32
// CHECK:               %[[WORD:.*]] = arith.ori %[[LOW]], %[[HIGH]] : i32
// CHECK:               memref.store %[[WORD]], %[[COLUMNS]]
// CHECK:             } else {
// The 2 x 2 block: four accumulators carried over the five weight words.
// CHECK:           %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A00:.*]] = %{{.*}}, %[[A01:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (i32, i32, i32, i32) {
// CHECK:             %[[C0:.*]] = memref.load %[[COLUMNS]]
// CHECK:             %[[C1:.*]] = memref.load %[[COLUMNS]]
// CHECK:             %[[W0:.*]] = memref.load %{{.*}} : memref<4x5xi32>
// CHECK:             %[[EVEN:.*]] = onnxc.widen_bytes %[[W0]] odd 0
// CHECK:             %[[ODD:.*]] = onnxc.widen_bytes %[[W0]] odd 1
// CHECK:             %[[S00:.*]] = onnxc.dot2 %[[EVEN]], %[[C0]], %[[A00]]
// CHECK:             onnxc.dot2 %[[ODD]], %[[C1]], %[[S00]]
// CHECK:           memref.load %{{.*}} : memref<4xf32>
// CHECK:           arith.sitofp %{{.*}} : i32 to f32
// CHECK:           arith.mulf
// CHECK:           arith.constant 0x4B400000 : f32
// CHECK:           arith.fptosi %{{.*}} {onnxc.in_range} : f32 to i32
// CHECK:           memref.store %{{.*}} : memref<1x3x3x3xi8>
