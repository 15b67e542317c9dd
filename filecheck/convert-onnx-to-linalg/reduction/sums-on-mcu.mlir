// RUN: xdsl-opt -p 'convert-onnx-to-linalg{target=cortex-m4}' --split-input-file %s | filecheck %s

// On a core without double-precision hardware (the Cortex-M4's FPU is single
// precision) a long float sum stays in float: a double addition would be a
// library call. The host targets accumulate it in double (reduce-mean.mlir).

func.func @reduce_mean_long(%x: tensor<2x16xf32>) -> tensor<2x1xf32> {
  %axes = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.ReduceMean"(%x, %axes) {onnx_node_name = "reduce_mean"} : (tensor<2x16xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  func.return %r : tensor<2x1xf32>
}

// CHECK-LABEL: func.func @reduce_mean_long(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x16xf32>, %[[OUT:[^:]*]]: memref<2x1xf32>)
// CHECK-NOT:     f64
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : memref<2x16xf32>) outs(%[[OUT]] : memref<2x1xf32>)
// CHECK-NOT:     f64
// CHECK:         func.return

// -----

func.func @softmax_wide(%x: tensor<2x1000xf32>) -> tensor<2x1000xf32> {
  %r = "onnx.Softmax"(%x) {axis = 1 : i64, onnx_node_name = "softmax"} : (tensor<2x1000xf32>) -> tensor<2x1000xf32>
  func.return %r : tensor<2x1000xf32>
}

// CHECK-LABEL: func.func @softmax_wide(
// CHECK-NOT:     f64
// CHECK:         math.exp
// CHECK-NOT:     f64
// CHECK:         func.return
