// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Sorted, flattened: each element's first equal element, each distinct
// element's place (the distinct elements smaller than it), then the outputs,
// whose size K (bounded by 6) is known after the first loop.
// CHECK-LABEL: func.func @unique(
// CHECK-SAME:      %[[X:.*]]: memref<6xf32>, %[[OY:.*]]: memref<?xf32>, %[[OI:.*]]: memref<?xi64>, %[[OV:.*]]: memref<6xi64>, %[[OC:.*]]: memref<?xi64>)
// CHECK:         %[[N:.*]] = arith.constant 6 : index
// CHECK:         %[[FIRST:.*]] = memref.alloc() : memref<6xi64>
// CHECK:         %[[PLACE:.*]] = memref.alloc() : memref<6xi64>
// CHECK:         %[[FOUND:.*]] = scf.for %[[I:[^ ]+]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (index) {
// CHECK:           %[[J:.*]] = scf.for %{{.*}} = %{{.*}} to %[[I]] step %{{.*}} iter_args(%{{.*}} = %[[I]]) -> (index) {
// CHECK:             arith.cmpf oeq
// CHECK:           memref.store %{{.*}}, %[[FIRST]][%[[I]]] : memref<6xi64>
// CHECK:         scf.for %[[I:[^ ]+]] = %{{.*}} to %[[N]] step
// CHECK:           scf.if
// CHECK:             scf.for
// CHECK:               arith.cmpf olt
// CHECK:             memref.store %{{.*}}, %[[PLACE]][%[[I]]] : memref<6xi64>
// CHECK:         %[[K:.*]] = arith.minsi %[[FOUND]], %[[N]] : index
// CHECK:         %[[Y:.*]] = onnxc.output %[[OY]][%[[K]]]
// CHECK:         %[[IND:.*]] = onnxc.output %[[OI]][%[[K]]]
// CHECK:         %[[C:.*]] = onnxc.output %[[OC]][%[[K]]]
// CHECK:         linalg.fill {{.*}} outs(%[[C]] : memref<?xi64>)
// CHECK:         scf.for %[[I:[^ ]+]] = %{{.*}} to %[[N]] step
// CHECK:           memref.store %{{.*}}, %[[OV]][%[[I]]] : memref<6xi64>
// CHECK:           memref.store %{{.*}}, %[[C]][%{{.*}}] : memref<?xi64>
// CHECK:           scf.if
// CHECK:             memref.store %{{.*}}, %[[IND]][%{{.*}}] : memref<?xi64>
// CHECK:             %[[V:.*]] = memref.load %[[X]][%[[I]]] : memref<6xf32>
// CHECK-NEXT:        memref.store %[[V]], %[[Y]][%{{.*}}] : memref<?xf32>

func.func @unique(%x: tensor<6xf32>) -> (tensor<?xf32, ["K"]>, tensor<?xi64, ["K"]>, tensor<6xi64>, tensor<?xi64, ["K"]>) {
  %y, %i, %v, %c = "onnx.Unique"(%x) {onnx_node_name = "u"} : (tensor<6xf32>) -> (tensor<?xf32, ["K"]>, tensor<?xi64, ["K"]>, tensor<6xi64>, tensor<?xi64, ["K"]>)
  func.return %y, %i, %v, %c : tensor<?xf32, ["K"]>, tensor<?xi64, ["K"]>, tensor<6xi64>, tensor<?xi64, ["K"]>
}

// -----

// Along an axis, unsorted: slices are compared element by element over the
// other axes; only Y is used, so the other outputs are not computed.
// CHECK-LABEL: func.func @unique_axis(
// CHECK-SAME:      %[[X:.*]]: memref<2x5xi8>, %[[OY:.*]]: memref<2x?xi8>)
// CHECK:         scf.for %[[I:[^ ]+]] = {{.*}} -> (index) {
// CHECK:           scf.for %[[J:[^ ]+]] = {{.*}} -> (index) {
// CHECK:             scf.for %[[R:[^ ]+]] = {{.*}} -> (i1) {
// CHECK-NEXT:          %[[A:.*]] = memref.load %[[X]][%[[R]], %[[J]]] : memref<2x5xi8>
// CHECK-NEXT:          %[[B:.*]] = memref.load %[[X]][%[[R]], %[[I]]] : memref<2x5xi8>
// CHECK-NEXT:          %{{.*}} = arith.cmpi eq, %[[A]], %[[B]] : i8
// CHECK-NOT:     arith.cmpi slt, %{{.*}}, %{{.*}} : i8
// CHECK:         %[[Y:.*]] = onnxc.output %[[OY]]
// CHECK-NOT:     linalg.fill

func.func @unique_axis(%x: tensor<2x5xi8>) -> tensor<2x?xi8, ["K"]> {
  %y, %i, %v, %c = "onnx.Unique"(%x) <{axis = -1 : i64, sorted = 0 : i64}> {onnx_node_name = "u"} : (tensor<2x5xi8>) -> (tensor<2x?xi8, ["K"]>, tensor<?xi64, ["K"]>, tensor<5xi64>, tensor<?xi64, ["K"]>)
  func.return %y : tensor<2x?xi8, ["K"]>
}
