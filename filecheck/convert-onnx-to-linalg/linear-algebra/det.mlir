// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Per matrix: a copy into a scratch buffer, then per column the pivot row
// (the largest magnitude) swapped in, the determinant multiplied by the
// pivot (negated after a swap), and the rows below reduced unless the pivot
// is 0.
// CHECK-LABEL: func.func @det(
// CHECK-SAME:      %[[X:.*]]: memref<2x3x3xf32>, %[[OUT:.*]]: memref<2xf32>)
// CHECK:         %[[M:.*]] = arith.constant 3 : index
// CHECK:         %[[WORK:.*]] = memref.alloc() : memref<3x3xf32>
// CHECK:         scf.for %[[B:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           scf.for %[[I:[^ ]+]] = %{{.*}} to %[[M]] step
// CHECK:             scf.for %[[J:[^ ]+]] = %{{.*}} to %[[M]] step
// CHECK-NEXT:          %[[V:.*]] = memref.load %[[X]][%[[B]], %[[I]], %[[J]]] : memref<2x3x3xf32>
// CHECK-NEXT:          memref.store %[[V]], %[[WORK]][%[[I]], %[[J]]] : memref<3x3xf32>
// CHECK:           %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:           %[[DET:.*]] = scf.for %[[K:[^ ]+]] = %{{.*}} to %[[M]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ONE]]) -> (f32) {
// CHECK:             %{{.*}}, %[[ROW:.*]] = scf.for {{.*}} -> (f32, index) {
// CHECK:               math.absf
// CHECK:               arith.cmpf ogt
// CHECK:             %[[SWAPPED:.*]] = arith.cmpi ne, %[[ROW]], %[[K]] : index
// CHECK-NEXT:        scf.if %[[SWAPPED]] {
// CHECK:             %[[PIVOT:.*]] = memref.load %[[WORK]][%[[K]], %[[K]]] : memref<3x3xf32>
// CHECK-NEXT:        %[[TIMES:.*]] = arith.mulf %[[ACC]], %[[PIVOT]] : f32
// CHECK-NEXT:        %[[NEG:.*]] = arith.negf %[[TIMES]] : f32
// CHECK-NEXT:        %[[NEXT:.*]] = arith.select %[[SWAPPED]], %[[NEG]], %[[TIMES]] : f32
// CHECK:             %[[NONZERO:.*]] = arith.cmpf une, %[[PIVOT]], %{{.*}} : f32
// CHECK-NEXT:        scf.if %[[NONZERO]] {
// CHECK:               arith.divf %{{.*}}, %[[PIVOT]] : f32
// CHECK:             scf.yield %[[NEXT]] : f32
// CHECK:           memref.store %[[DET]], %[[OUT]][%[[B]]] : memref<2xf32>

func.func @det(%x: tensor<2x3x3xf32>) -> tensor<2xf32> {
  %r = "onnx.Det"(%x) {onnx_node_name = "d"} : (tensor<2x3x3xf32>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
