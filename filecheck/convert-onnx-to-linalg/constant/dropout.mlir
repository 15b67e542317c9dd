// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// Inference: the output is the input (copied to the graph output here), the
// mask all true.
func.func @dropout(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  %n = "onnx.NoValue"() : () -> none
  %y, %mask = "onnx.Dropout"(%x, %n, %n) {onnx_node_name = "d"} : (tensor<2x3xf32>, none, none) -> (tensor<2x3xf32>, tensor<2x3xi1>)
  func.return %y, %mask : tensor<2x3xf32>, tensor<2x3xi1>
}

// CHECK-LABEL: func.func @dropout(%x: memref<2x3xf32>, %out0: memref<2x3xf32>, %out1: memref<2x3xi1>)
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:    linalg.fill {onnxc.comment = "Dropout d"} ins(%[[TRUE]] : i1) outs(%out1 : memref<2x3xi1>)
// CHECK:         linalg.generic {{.*}} ins(%x : memref<2x3xf32>) outs(%out0 : memref<2x3xf32>) attrs =  {onnxc.comment = "copy to graph output"}
