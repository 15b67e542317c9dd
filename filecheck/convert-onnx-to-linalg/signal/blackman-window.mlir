// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @blackman() -> tensor<8xi32> {
  %n = "onnx.Constant"() <{value = dense<8> : tensor<i32>}> : () -> tensor<i32>
  %r = "onnx.BlackmanWindow"(%n) <{output_datatype = 6 : i64}> {onnx_node_name = "blackman"} : (tensor<i32>) -> tensor<8xi32>
  func.return %r : tensor<8xi32>
}

// -0.5 cos(2 pi n / 8) + 0.08 cos(4 pi n / 8) + 0.42, truncated to int32.
// CHECK-LABEL: func.func @blackman
// CHECK:         linalg.generic
// CHECK:           %[[C1:.*]] = math.cos %[[ANGLE:.*]] : f64
// CHECK:           arith.constant -5.000000e-01 : f64
// CHECK:           %[[TWICE:.*]] = arith.mulf %{{.*}}, %[[ANGLE]] : f64
// CHECK-NEXT:      math.cos %[[TWICE]] : f64
// CHECK:           arith.constant 8.000000e-02 : f64
// CHECK:           arith.constant 4.200000e-01 : f64
// CHECK:           arith.fptosi %{{.*}} : f64 to i32
