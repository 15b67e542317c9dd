// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @scatter_nd(%x: tensor<4x3xi32>, %i: tensor<2x1xi64>, %u: tensor<2x3xi32>) -> tensor<4x3xi32> {
  %r = "onnx.ScatterND"(%x, %i, %u) {onnx_node_name = "snd"} : (tensor<4x3xi32>, tensor<2x1xi64>, tensor<2x3xi32>) -> tensor<4x3xi32>
  func.return %r : tensor<4x3xi32>
}

// CHECK-LABEL: func.func @scatter_nd
// CHECK-SAME:    (%[[X:.*]]: memref<4x3xi32>, %[[I:.*]]: memref<2x1xi64>, %[[U:.*]]: memref<2x3xi32>, %[[Y:.*]]: memref<4x3xi32>)
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : memref<4x3xi32>) outs(%[[Y]] : memref<4x3xi32>)
// CHECK:         scf.for %[[A:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           memref.load %[[I]][%[[A]], %{{.*}}] : memref<2x1xi64>
// CHECK:           onnxc.check %{{.*}}, "ScatterND snd: index 0 of a tuple is in range"
// CHECK:           scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[U]][%[[A]], %[[B]]] : memref<2x3xi32>
// CHECK-NEXT:        memref.store %[[V]], %[[Y]][%{{.*}}, %[[B]]] : memref<4x3xi32>
