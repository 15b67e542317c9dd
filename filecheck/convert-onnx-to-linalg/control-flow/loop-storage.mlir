// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// A carried value whose size changes from trip to trip (the importer types
// the body input with an unbound symbol, "g"): it lives in loop storage
// with its size in an i64 cell. The initial value is written there after a
// reserve of its bytes; each trip reads a view at the size in the cell and
// writes what it yields back at its new size; after the loop the final
// value is copied out at the size the cell holds.
func.func @grow(%n: tensor<i64>, %x: tensor<2xf32>) -> tensor<?xf32, ["y"]> {
  %none = "onnx.NoValue"() : () -> none
  %y = "onnx.Loop"(%n, %none, %x) ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<?xf32, ["g"]>):
    %keep = "onnx.Identity"(%cond) {onnx_node_name = "keep"} : (tensor<i1>) -> tensor<i1>
    %next = "onnx.Concat"(%acc, %x) <{axis = 0 : i64}> {onnx_node_name = "cat"} : (tensor<?xf32, ["g"]>, tensor<2xf32>) -> tensor<?xf32, ["h"]>
    "onnx.Yield"(%keep, %next) : (tensor<i1>, tensor<?xf32, ["h"]>) -> ()
  }) {onnx_node_name = "loop"} : (tensor<i64>, none, tensor<2xf32>) -> tensor<?xf32, ["y"]>
  func.return %y : tensor<?xf32, ["y"]>
}

// CHECK-LABEL: func.func @grow(
// CHECK-SAME:    %{{[^:]*}}: memref<i64>, %[[X:[^:]*]]: memref<2xf32>, %[[OUT:[^:]*]]: memref<?xf32>)
// CHECK:         %[[STORAGE:.*]] = onnxc.loop_storage : memref<?xi8>
// CHECK-NEXT:    %[[CELLS:.*]] = memref.alloc() : memref<1xi64>
// CHECK:         onnxc.reserve %[[STORAGE]], %{{.*}} : memref<?xi8>
// CHECK:         memref.store %{{.*}}, %[[CELLS]][%{{.*}}] : memref<1xi64>
// CHECK:         %[[FIRST:.*]] = memref.view %[[STORAGE]][%{{.*}}][] : memref<?xi8> to memref<2xf32>
// CHECK:           memref.store %{{.*}}, %[[FIRST]][%{{.*}}] : memref<2xf32>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[SIZE:.*]] = memref.load %[[CELLS]][%{{.*}}] : memref<1xi64>
// CHECK-NEXT:      %[[G:.*]] = arith.index_cast %[[SIZE]] : i64 to index
// CHECK:           %[[ENTRY:.*]] = memref.view %[[STORAGE]][%{{.*}}][%[[G]]] : memref<?xi8> to memref<?xf32>
// CHECK:           %[[H:.*]] = arith.addi %[[G]], %{{.*}} : index
// CHECK:           %[[NEXT:.*]] = memref.alloc(%[[H]]) : memref<?xf32>
// CHECK:             memref.load %[[ENTRY]][%{{.*}}] : memref<?xf32>
// CHECK:           %[[BYTES:.*]] = arith.muli %{{.*}}, %[[H]] : index
// CHECK-NEXT:      onnxc.reserve %[[STORAGE]], %[[BYTES]] : memref<?xi8>
// CHECK:           memref.store %{{.*}}, %[[CELLS]][%{{.*}}] : memref<1xi64>
// CHECK:           %[[AFTER:.*]] = memref.view %[[STORAGE]][%{{.*}}][%[[H]]] : memref<?xi8> to memref<?xf32>
// CHECK:             %[[E:.*]] = memref.load %[[NEXT]][%{{.*}}] : memref<?xf32>
// CHECK-NEXT:        memref.store %[[E]], %[[AFTER]][%{{.*}}] : memref<?xf32>
// CHECK:         } {onnxc.comment = "Loop loop"}
// CHECK:         %[[FINAL:.*]] = memref.load %[[CELLS]][%{{.*}}] : memref<1xi64>
// CHECK-NEXT:    %[[Y:.*]] = arith.index_cast %[[FINAL]] : i64 to index
// CHECK:         %[[RESULT:.*]] = onnxc.output %[[OUT]][%[[Y]]]
// CHECK:         %[[LAST:.*]] = memref.view %[[STORAGE]][%{{.*}}][%[[Y]]] : memref<?xi8> to memref<?xf32>
// CHECK:           %[[F:.*]] = memref.load %[[LAST]][%{{.*}}] : memref<?xf32>
// CHECK-NEXT:      memref.store %[[F]], %[[RESULT]][%{{.*}}] : memref<?xf32>
