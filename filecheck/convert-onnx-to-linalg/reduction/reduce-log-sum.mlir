// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @reduce_log_sum(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %axes = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.ReduceLogSum"(%x, %axes) {onnx_node_name = "reduce_log_sum"} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  func.return %r : tensor<2x1xf32>
}

// CHECK-LABEL: func.func @reduce_log_sum(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x1xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : f32) outs(%[[OUT]] : memref<2x1xf32>)
// CHECK-NEXT:    linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]}
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      arith.addf %[[ACC]], %[[V]] : f32
// CHECK:         linalg.generic {{.*}} outs(%[[OUT]] : memref<2x1xf32>)
// CHECK-NEXT:    ^bb0(%[[T:[^:]*]]: f32):
// CHECK-NEXT:      %[[L:.*]] = math.log %[[T]] : f32
// CHECK-NEXT:      linalg.yield %[[L]] : f32
