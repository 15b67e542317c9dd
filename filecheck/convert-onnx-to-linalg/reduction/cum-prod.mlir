// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// An axis known only at run time (checked in range): input and output are
// seen as [before, axis, after] views with sizes computed from it.

func.func @cumprod_runtime_axis(%x: tensor<2x3xi32>, %axis: tensor<i32>) -> tensor<2x3xi32> {
  %r = "onnx.CumProd"(%x, %axis) {onnx_node_name = "cumprod"} : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @cumprod_runtime_axis(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xi32>, %[[AXIS:[^:]*]]: memref<i32>, %[[OUT:[^:]*]]: memref<2x3xi32>)
// CHECK:         memref.load %[[AXIS]][] : memref<i32>
// CHECK:         onnxc.check {{.*}} "CumProd cumprod: the axis is in range"
// CHECK:         %[[XF:.*]] = memref.collapse_shape %[[X]]
// CHECK-NEXT:    %[[X3:.*]] = memref.expand_shape %[[XF]] {{.*}} output_shape [%[[B:.*]], %[[N:.*]], %[[A:.*]]] {{.*}} into memref<?x?x?xi32>
// CHECK-NEXT:    %[[OF:.*]] = memref.collapse_shape %[[OUT]]
// CHECK-NEXT:    %[[O3:.*]] = memref.expand_shape %[[OF]] {{.*}} output_shape [%[[B]], %[[N]], %[[A]]] {{.*}} into memref<?x?x?xi32>
// CHECK:         scf.for %[[P:.*]] = %{{.*}} to %[[B]] step
// CHECK:           scf.for %[[Q:.*]] = %{{.*}} to %[[A]] step
// CHECK:             %[[ONE:.*]] = arith.constant 1 : i32
// CHECK:             scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ONE]]) -> (i32) {
// CHECK-NEXT:          %[[V:.*]] = memref.load %[[X3]][%[[P]], %[[I]], %[[Q]]] : memref<?x?x?xi32>
// CHECK-NEXT:          %[[PROD:.*]] = arith.muli %[[ACC]], %[[V]] : i32
// CHECK-NEXT:          memref.store %[[PROD]], %[[O3]][%[[P]], %[[I]], %[[Q]]] : memref<?x?x?xi32>
// CHECK-NEXT:          scf.yield %[[PROD]] : i32
