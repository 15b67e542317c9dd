// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// An If result whose size the branch taken decides (4 in else_branch, the
// first region, 2 in then_branch), each branch yielding it at static sizes:
// it lives in a buffer of the larger (16 bytes), each branch recording its
// size in the cell and copying its value there (nothing to reserve); after
// the scf.if the result is that buffer seen at the size the cell holds.
func.func @branch_sizes(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<?xf32, ["y"]> {
  %y = "onnx.If"(%c) ({
    %d = "onnx.Concat"(%x, %x) <{axis = 0 : i64}> {onnx_node_name = "double"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
    "onnx.Yield"(%d) : (tensor<4xf32>) -> ()
  }, {
    "onnx.Yield"(%x) : (tensor<2xf32>) -> ()
  }) {onnx_node_name = "pick"} : (tensor<i1>) -> tensor<?xf32, ["y"]>
  func.return %y : tensor<?xf32, ["y"]>
}

// CHECK-LABEL: func.func @branch_sizes(
// CHECK-SAME:    %{{[^:]*}}: memref<i1>, %[[X:[^:]*]]: memref<2xf32>, %[[OUT:[^:]*]]: memref<?xf32>)
// CHECK:         %[[STORAGE:.*]] = memref.alloc() : memref<16xi8>
// CHECK-NEXT:    %[[CELLS:.*]] = memref.alloc() : memref<1xi64>
// CHECK-NEXT:    scf.if %{{.*}} {
// CHECK-NOT:       onnxc.reserve
// CHECK:           %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[TWO64:.*]] = arith.index_cast %[[TWO]] : index to i64
// CHECK:           memref.store %[[TWO64]], %[[CELLS]][%{{.*}}] : memref<1xi64>
// CHECK:           %[[SMALL:.*]] = memref.view %[[STORAGE]][%{{.*}}][] : memref<16xi8> to memref<2xf32>
// CHECK:             memref.store %{{.*}}, %[[SMALL]][%{{.*}}] : memref<2xf32>
// CHECK:         } else {
// CHECK:           %[[D:.*]] = memref.alloc() : memref<4xf32>
// CHECK:           %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[FOUR64:.*]] = arith.index_cast %[[FOUR]] : index to i64
// CHECK:           memref.store %[[FOUR64]], %[[CELLS]][%{{.*}}] : memref<1xi64>
// CHECK:           %[[BIG:.*]] = memref.view %[[STORAGE]][%{{.*}}][] : memref<16xi8> to memref<4xf32>
// CHECK:             %[[E:.*]] = memref.load %[[D]][%{{.*}}] : memref<4xf32>
// CHECK-NEXT:        memref.store %[[E]], %[[BIG]][%{{.*}}] : memref<4xf32>
// CHECK:         }{onnxc.comment = "If pick"}
// CHECK:         %[[SIZE:.*]] = memref.load %[[CELLS]][%{{.*}}] : memref<1xi64>
// CHECK-NEXT:    %[[N:.*]] = arith.index_cast %[[SIZE]] : i64 to index
// CHECK:         %[[TAKEN:.*]] = memref.view %[[STORAGE]][%{{.*}}][%[[N]]] : memref<16xi8> to memref<?xf32>
// CHECK:         %[[Y:.*]] = onnxc.output %[[OUT]][%[[N]]]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[TAKEN]] : memref<?xf32>) outs(%[[Y]] : memref<?xf32>)