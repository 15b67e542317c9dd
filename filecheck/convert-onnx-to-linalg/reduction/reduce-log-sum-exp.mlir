// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// The shift (the largest finite element, 0 if none) is reduced first; the
// sum of exp(x - shift) and the result are computed in float for float16.

func.func @reduce_log_sum_exp_f16(%x: tensor<2x3xf16>) -> tensor<2xf16> {
  %axes = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.ReduceLogSumExp"(%x, %axes) <{keepdims = 0 : i64}> {onnx_node_name = "lse"} : (tensor<2x3xf16>, tensor<1xi64>) -> tensor<2xf16>
  func.return %r : tensor<2xf16>
}

// CHECK-LABEL: func.func @reduce_log_sum_exp_f16(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xf16>, %[[OUT:[^:]*]]: memref<2xf16>)
// CHECK:         %[[SUM:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:    %[[SHIFT:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:    %[[NEG_INF:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[NEG_INF]] : f32) outs(%[[SHIFT]] : memref<2xf32>)
// CHECK-NEXT:    linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : memref<2x3xf16>) outs(%[[SHIFT]] : memref<2xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f16, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT:      %[[ABS:.*]] = math.absf %[[W]] : f32
// CHECK-NEXT:      %[[INF:.*]] = arith.constant 0x7f800000 : f32
// CHECK-NEXT:      %[[FINITE:.*]] = arith.cmpf olt, %[[ABS]], %[[INF]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[ACC]], %[[W]] : f32
// CHECK-NEXT:      %[[NEW:.*]] = arith.select %[[FINITE]], %[[M]], %[[ACC]] : f32
// CHECK-NEXT:      linalg.yield %[[NEW]] : f32
// CHECK:         linalg.fill {{.*}} outs(%[[SUM]] : memref<2xf32>)
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[X]], %[[SHIFT]] : memref<2x3xf16>, memref<2xf32>) outs(%[[SUM]] : memref<2xf32>)
// CHECK:           %[[D:.*]] = arith.subf
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT:      arith.addf %{{.*}}, %[[E]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[SHIFT]] : memref<2xf32>) outs(%[[SUM]] : memref<2xf32>)
// CHECK:           math.log
// CHECK:         linalg.generic {{.*}} ins(%[[SUM]] : memref<2xf32>) outs(%[[OUT]] : memref<2xf16>)
// CHECK-NEXT:    ^bb0(%[[T:[^:]*]]: f32, %{{.*}}: f16):
// CHECK-NEXT:      %[[H:.*]] = arith.truncf %[[T]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[H]] : f16
