// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// float16: the log-softmax is computed in a float buffer, which the loss
// reads and which is rounded into the log_prob output.
// CHECK-LABEL: func.func @sce(
// CHECK-SAME:      %[[X:.*]]: memref<3x5xf16>, %[[T:.*]]: memref<3xi32>, %[[LOSS:.*]]: memref<3xf16>, %[[LOGP:.*]]: memref<3x5xf16>)
// CHECK:         %[[WIDE:.*]] = memref.alloc() : memref<3x5xf32>
// CHECK:         %[[MAX:.*]] = memref.alloc() : memref<3xf16>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : memref<3x5xf16>) outs(%[[MAX]] : memref<3xf16>)
// CHECK:           arith.maximumf
// CHECK:         %[[SUM:.*]] = memref.alloc() : memref<3xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[MAX]] : memref<3x5xf16>, memref<3xf16>) outs(%[[SUM]] : memref<3xf32>)
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[MAX]], %[[SUM]] : {{.*}}) outs(%[[WIDE]] : memref<3x5xf32>)
// CHECK:           math.log
// CHECK:         linalg.generic {{.*}} ins(%[[T]] : memref<3xi32>) outs(%[[LOSS]] : memref<3xf16>)
// CHECK:           %[[LP:.*]] = memref.load %[[WIDE]]
// CHECK-NEXT:      %[[NEG:.*]] = arith.negf %[[LP]] : f32
// CHECK:           arith.truncf %[[NEG]] : f32 to f16
// CHECK:         linalg.generic {{.*}} ins(%[[WIDE]] : memref<3x5xf32>) outs(%[[LOGP]] : memref<3x5xf16>)
// CHECK:           arith.truncf

func.func @sce(%x: tensor<3x5xf16>, %t: tensor<3xi32>) -> (tensor<3xf16>, tensor<3x5xf16>) {
  %none = "onnx.NoValue"() : () -> none
  %r, %lp = "onnx.SoftmaxCrossEntropyLoss"(%x, %t, %none) <{reduction = "none"}> {onnx_node_name = "sce"} : (tensor<3x5xf16>, tensor<3xi32>, none) -> (tensor<3xf16>, tensor<3x5xf16>)
  func.return %r, %lp : tensor<3xf16>, tensor<3x5xf16>
}
