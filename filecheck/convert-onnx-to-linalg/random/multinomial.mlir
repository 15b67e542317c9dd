// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// Per row: the maximum, then the cumulative sums of exp(x - max) into a
// scratch buffer; per sample: u * total, and the number of cumulative sums
// at or below it (at most classes - 1) is the class.
func.func @multinomial(%x: tensor<2x3xf32>) -> tensor<2x4xi64> {
  %r = "onnx.Multinomial"(%x) <{dtype = 7 : i64, sample_size = 4 : i64}> {onnx_node_name = "m"} : (tensor<2x3xf32>) -> tensor<2x4xi64>
  func.return %r : tensor<2x4xi64>
}

// CHECK-LABEL: func.func @multinomial(%x: memref<2x3xf32>, %out0: memref<2x4xi64>)
// CHECK:         %[[LAST:.*]] = arith.constant 2 : index
// CHECK:         %[[CDF:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[MAX:.*]] = scf.for {{.*}} -> (f32) {
// CHECK:             arith.maximumf
// CHECK:           scf.for %[[C:.*]] = {{.*}} iter_args(%[[SUM:.*]] = %{{.*}}) -> (f32) {
// CHECK:             %[[SHIFTED:.*]] = arith.subf %{{.*}}, %[[MAX]] : f32
// CHECK-NEXT:        %[[E:.*]] = math.exp %[[SHIFTED]] : f32
// CHECK-NEXT:        %[[GROWN:.*]] = arith.addf %[[SUM]], %[[E]] : f32
// CHECK-NEXT:        memref.store %[[GROWN]], %[[CDF]][%[[ROW]], %[[C]]] : memref<2x3xf32>
// CHECK:         } {onnxc.comment = "Multinomial m"}
// CHECK:         scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           scf.for %[[S:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             %[[TOTAL:.*]] = memref.load %[[CDF]][%[[R]], %[[LAST]]] : memref<2x3xf32>
// CHECK:             %[[U:.*]] = onnxc.uniform %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:        %[[POINT:.*]] = arith.mulf %[[U]], %[[TOTAL]] : f32
// CHECK:             %[[FOUND:.*]] = scf.for {{.*}} -> (index) {
// CHECK:               arith.cmpf ole, %{{.*}}, %[[POINT]] : f32
// CHECK:             %[[CLASS:.*]] = arith.minsi %[[FOUND]], %[[LAST]] : index
// CHECK-NEXT:        %[[V:.*]] = arith.index_cast %[[CLASS]] : index to i64
// CHECK-NEXT:        memref.store %[[V]], %out0[%[[R]], %[[S]]] : memref<2x4xi64>
