// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// Each input element scatters into the outputs its window covers: a zero
// fill, then loops (n, g, c, i, j, k, l, m) that compute the output position
// i * stride + k * dilation - pad, and accumulate where it lies inside Y.
func.func @conv_transpose(%x: tensor<1x2x3x3xf32>) -> tensor<1x3x6x3xf32> {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<2x3x2x2xf32>}> {onnx_node_name = "w"} : () -> tensor<2x3x2x2xf32>
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.ConvTranspose"(%x, %w, %n) <{strides = array<i64: 2, 1>, pads = array<i64: 0, 1, 1, 0>, output_padding = array<i64: 1, 0>}> {onnx_node_name = "ct"} : (tensor<1x2x3x3xf32>, tensor<2x3x2x2xf32>, none) -> tensor<1x3x6x3xf32>
  func.return %y : tensor<1x3x6x3xf32>
}

// CHECK-LABEL: func.func @conv_transpose
// CHECK:         linalg.fill {onnxc.comment = "ConvTranspose ct"}
// CHECK-COUNT-8: scf.for
// CHECK:         %[[STRIDED:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK:         arith.cmpi sge
// CHECK:         arith.cmpi slt
// CHECK:         scf.if %{{.*}} {
// CHECK-NEXT:      %[[XV:.*]] = memref.load %x
// CHECK-NEXT:      %[[WV:.*]] = memref.load
// CHECK-NEXT:      %[[YV:.*]] = memref.load %out0
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[XV]], %[[WV]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[YV]], %[[P]] : f32
// CHECK-NEXT:      memref.store %[[S]], %out0
// CHECK:         } {onnxc.comment = "ConvTranspose ct"}
