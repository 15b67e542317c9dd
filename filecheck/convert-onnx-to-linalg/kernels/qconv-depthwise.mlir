// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// The depthwise integer kernel: per channel, its nine taps are read once;
// each output is one int32 sum of x * w started at the folded bias. The
// 4x5 output of a 3x3 window with padding 1 has rows 1..2 and columns 1..3
// inside the input: those read x directly; the border ones read each tap at
// a clamped position and take x's zero point (5) outside the input.
func.func @depthwise(%x: tensor<1x2x4x5xi8>) -> tensor<1x2x4x5xi8> {
  %w = "onnx.Constant"() <{value = dense<1> : tensor<2x9xi8>}> {onnx_node_name = "w"} : () -> tensor<2x9xi8>
  %b = "onnx.Constant"() <{value = dense<[1, 2]> : tensor<2xi32>}> {onnx_node_name = "b"} : () -> tensor<2xi32>
  %s = "onnx.Constant"() <{value = dense<0.125> : tensor<2xf32>}> {onnx_node_name = "s"} : () -> tensor<2xf32>
  %y = "kernel.qconv"(%x, %w, %b, %s) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_shape = array<i64: 3, 3>, x_zero_point = 5 : i64, y_zero_point = 0 : i64, group = 2 : i64}> {onnx_node_name = "dw"} : (tensor<1x2x4x5xi8>, tensor<2x9xi8>, tensor<2xi32>, tensor<2xf32>) -> tensor<1x2x4x5xi8>
  func.return %y : tensor<1x2x4x5xi8>
}

// CHECK-LABEL: func.func @depthwise
// CHECK-NOT:     memref.alloc() : memref<2x
// The taps of the channel, read once.
// CHECK-COUNT-9: memref.load %{{.*}} : memref<2x9xi8>
// CHECK:         memref.load %{{.*}} : memref<2xi32>
// Row 0: border pixels, a tap outside the input takes the zero point.
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK:             arith.muli
// Rows 1..2: columns 0, 1..3 (inside: no select), 4.
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK:           scf.for
// CHECK:             arith.select
// CHECK:           scf.for
// CHECK-NOT:         arith.select {{.*}} : i32
// CHECK:             arith.fptosi %{{.*}} {onnxc.in_range} : f32 to i32
// CHECK:             memref.store %{{.*}} : memref<1x2x4x5xi8>
// CHECK:           scf.for
// CHECK:             arith.select
