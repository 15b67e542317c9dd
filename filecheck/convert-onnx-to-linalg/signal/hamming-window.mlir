// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @hamming() -> tensor<10xf64> {
  %n = "onnx.Constant"() <{value = dense<10> : tensor<i64>}> : () -> tensor<i64>
  %r = "onnx.HammingWindow"(%n) <{output_datatype = 11 : i64, periodic = 0 : i64}> {onnx_node_name = "hamming"} : (tensor<i64>) -> tensor<10xf64>
  func.return %r : tensor<10xf64>
}

// Symmetric: N = size - 1 = 9; 25/46 - 21/46 cos(2 pi n / 9).
// CHECK-LABEL: func.func @hamming
// CHECK:         %[[N:.*]] = arith.constant {{.*}} 9.000000e+00 : f64
// CHECK-NEXT:    %[[TWO_PI:.*]] = arith.constant {{.*}} 6.2831853071795862 : f64
// CHECK-NEXT:    %[[STEP:.*]] = arith.divf %[[TWO_PI]], %[[N]] {{.*}} : f64
// CHECK:         linalg.generic
// CHECK:           arith.mulf %[[STEP]], %{{.*}} : f64
// CHECK:           arith.constant -0.45652173913043481 : f64
// CHECK:           arith.constant 0.54347826086956519 : f64
// CHECK-NOT:       truncf
// CHECK:           linalg.yield %{{.*}} : f64
