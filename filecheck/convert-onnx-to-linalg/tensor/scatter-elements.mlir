// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @scatter_elements(%x: tensor<3x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %r = "onnx.ScatterElements"(%x, %i, %u) <{reduction = "add"}> {onnx_node_name = "se"} : (tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) -> tensor<3x3xf32>
  func.return %r : tensor<3x3xf32>
}

// CHECK-LABEL: func.func @scatter_elements
// CHECK-SAME:    (%[[X:.*]]: memref<3x3xf32>, %[[I:.*]]: memref<2x3xi64>, %[[U:.*]]: memref<2x3xf32>, %[[Y:.*]]: memref<3x3xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : memref<3x3xf32>) outs(%[[Y]] : memref<3x3xf32>)
// CHECK:         scf.for %[[A:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[K:.*]] = memref.load %[[I]][%[[A]], %[[B]]] : memref<2x3xi64>
// CHECK:             onnxc.check %{{.*}}, "ScatterElements se: an index is in range"
// CHECK-NEXT:        %[[NEW:.*]] = memref.load %[[U]][%[[A]], %[[B]]] : memref<2x3xf32>
// CHECK-NEXT:        %[[OLD:.*]] = memref.load %[[Y]][%[[T:.*]], %[[B]]] : memref<3x3xf32>
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[OLD]], %[[NEW]] : f32
// CHECK-NEXT:        memref.store %[[SUM]], %[[Y]][%[[T]], %[[B]]] : memref<3x3xf32>
