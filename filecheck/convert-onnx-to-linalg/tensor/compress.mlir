// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @compress(%x: tensor<4x3xf32>, %c: tensor<4xi1>) -> tensor<?x3xf32, ["K"]> attributes {onnxc.input_names = ["x", "c"], onnxc.output_names = ["y"]} {
  %r = "onnx.Compress"(%x, %c) <{axis = 0 : i64}> {onnx_node_name = "cmp"} : (tensor<4x3xf32>, tensor<4xi1>) -> tensor<?x3xf32, ["K"]>
  func.return %r : tensor<?x3xf32, ["K"]>
}

// CHECK-LABEL: func.func @compress
// CHECK-SAME:    (%[[X:.*]]: memref<4x3xf32>, %[[C:.*]]: memref<4xi1>, %[[OUT:.*]]: memref<?x3xf32>)
// CHECK:         %[[FOUND:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (index) {
// CHECK:         %[[COUNT:.*]] = arith.minsi %[[FOUND]], %{{.*}} : index
// CHECK:         %[[Y:.*]] = onnxc.output %[[OUT]][%[[COUNT]]]
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[PLACE:.*]] = %{{.*}}) -> (index) {
// CHECK-NEXT:      %[[KEEP:.*]] = memref.load %[[C]][%[[I]]] : memref<4xi1>
// CHECK-NEXT:      scf.if %[[KEEP]] {
// CHECK:             scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          %[[V:.*]] = memref.load %[[X]][%[[I]], %[[J]]] : memref<4x3xf32>
// CHECK-NEXT:          memref.store %[[V]], %[[Y]][%[[PLACE]], %[[J]]] : memref<?x3xf32>
