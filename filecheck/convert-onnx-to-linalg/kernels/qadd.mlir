// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// kernel.qadd is one elementwise generic: both addends dequantized
// ((x - zero point) * scale), added, divided by y's scale and quantized
// (clamp, round half to even, zero point), as the three operators would.
func.func @qadd(%a: tensor<2x3xi8>, %b: tensor<2x3xi8>) -> tensor<2x3xi8> {
  %as = "onnx.Constant"() <{value = dense<0.5> : tensor<f32>}> : () -> tensor<f32>
  %az = "onnx.Constant"() <{value = dense<3> : tensor<i8>}> : () -> tensor<i8>
  %bs = "onnx.Constant"() <{value = dense<0.25> : tensor<f32>}> : () -> tensor<f32>
  %bz = "onnx.Constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
  %ys = "onnx.Constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %yz = "onnx.Constant"() <{value = dense<-128> : tensor<i8>}> : () -> tensor<i8>
  %q = "kernel.qadd"(%a, %as, %az, %b, %bs, %bz, %ys, %yz) {onnx_node_name = "add"} : (tensor<2x3xi8>, tensor<f32>, tensor<i8>, tensor<2x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  func.return %q : tensor<2x3xi8>
}

// CHECK-LABEL: func.func @qadd
// CHECK:         linalg.generic
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:           arith.divf
// CHECK:           arith.fptosi %{{.*}} {onnxc.in_range} : f32 to i32
// CHECK:           linalg.yield %{{.*}} : i8
// CHECK-NOT:     linalg.generic
