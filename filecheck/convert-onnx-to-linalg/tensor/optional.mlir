// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// The optional operators on plain tensors: OptionalGetElement is its input's
// buffer, OptionalHasElement a constant (true of a tensor, false of an omitted
// input).

func.func @optionals(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<i1>, tensor<i1>) {
  %y = "onnx.OptionalGetElement"(%x) {onnx_node_name = "get"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %p = "onnx.OptionalHasElement"(%x) {onnx_node_name = "has"} : (tensor<2x3xf32>) -> tensor<i1>
  %none = "onnx.NoValue"() : () -> none
  %q = "onnx.OptionalHasElement"(%none) {onnx_node_name = "has_none"} : (none) -> tensor<i1>
  func.return %y, %p, %q : tensor<2x3xf32>, tensor<i1>, tensor<i1>
}

// CHECK-LABEL: func.func @optionals
// CHECK-SAME:    (%[[X:.*]]: memref<2x3xf32>, %[[Y:.*]]: memref<2x3xf32>, %[[P:.*]]: memref<i1>, %[[Q:.*]]: memref<i1>)
// CHECK-NOT:     onnx.
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK:         linalg.fill {onnxc.comment = "OptionalHasElement has"} ins(%[[TRUE]] : i1) outs(%[[P]] : memref<i1>)
// CHECK:         %[[FALSE:.*]] = arith.constant false
// CHECK:         linalg.fill {onnxc.comment = "OptionalHasElement has_none"} ins(%[[FALSE]] : i1) outs(%[[Q]] : memref<i1>)
// The tensor itself: copied into the graph output as any graph input is.
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : memref<2x3xf32>) outs(%[[Y]] : memref<2x3xf32>) attrs = {onnxc.comment = "copy to graph output"}
