// RUN: xdsl-opt -p plan-memory %s | filecheck %s

// Loop storage and the buffer the loop body sizes from it (no bound) share
// the workspace left after the arena's planned part (base 16): each gets
// (available - 16) / 2 bytes, rounded down to 16. A reserve, and the body's
// buffer, become workspace checks asking for 16 + 2 x their aligned bytes.
// The final value, copied out after the loop into a buffer sized from data,
// starts at the base again.

func.func @grow(%n: memref<i64>, %x: memref<2xf32>) attributes {onnxc.input_names = ["n", "x"], onnxc.output_names = []} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %trips = memref.load %n[] : memref<i64>
  %count = arith.index_cast %trips : i64 to index
  %storage = onnxc.loop_storage : memref<?xi8>
  %cells = memref.alloc() : memref<1xi64>
  onnxc.reserve %storage, %c8 : memref<?xi8>
  %first = memref.view %storage[%c0][] : memref<?xi8> to memref<2xf32>
  "memref.copy"(%x, %first) : (memref<2xf32>, memref<2xf32>) -> ()
  scf.for %i = %c0 to %count step %c1 {
    %size64 = memref.load %cells[%c0] : memref<1xi64>
    %size = arith.index_cast %size64 : i64 to index
    %entry = memref.view %storage[%c0][%size] : memref<?xi8> to memref<?xf32>
    %grown = arith.addi %size, %c2 : index
    %next = memref.alloc(%grown) : memref<?xf32>
    %e = memref.load %entry[%c0] : memref<?xf32>
    memref.store %e, %next[%c0] : memref<?xf32>
    %bytes = arith.muli %grown, %c8 : index
    onnxc.reserve %storage, %bytes : memref<?xi8>
    %after = memref.view %storage[%c0][%grown] : memref<?xi8> to memref<?xf32>
    "memref.copy"(%next, %after) : (memref<?xf32>, memref<?xf32>) -> ()
  }
  %final64 = memref.load %cells[%c0] : memref<1xi64>
  %final = arith.index_cast %final64 : i64 to index
  %out = memref.alloc(%final) : memref<?xf32>
  %last = memref.view %storage[%c0][%final] : memref<?xi8> to memref<?xf32>
  "memref.copy"(%last, %out) : (memref<?xf32>, memref<?xf32>) -> ()
  "memref.copy"(%out, %out) : (memref<?xf32>, memref<?xf32>) -> ()
  func.return
}

// CHECK-LABEL: func.func @grow(
// CHECK:         %[[ARENA:.*]] = memref.alloc() {alignment = 16 : i64, onnxc.arena} : memref<8xi8>
// CHECK:         %[[BASE:.*]] = arith.constant 16 : index
// CHECK-NEXT:    onnxc.workspace %[[BASE]]
// CHECK-NEXT:    %[[AVAILABLE:.*]] = onnxc.workspace_available
// CHECK-NEXT:    %[[LEFT:.*]] = arith.subi %[[AVAILABLE]], %[[BASE]] : index
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[HALF:.*]] = arith.floordivsi %[[LEFT]], %[[TWO]] : index
// CHECK-NEXT:    %[[UNITS:.*]] = arith.floordivsi %[[HALF]], %{{.*}} : index
// CHECK-NEXT:    %[[SHARE:.*]] = arith.muli %[[UNITS]], %{{.*}} : index
// CHECK-NEXT:    %[[SECOND:.*]] = arith.addi %[[BASE]], %[[SHARE]] : index
// CHECK-NEXT:    %[[STORAGE:.*]] = memref.view %[[ARENA]][%[[BASE]]][%[[SHARE]]] : memref<8xi8> to memref<?xi8>
// CHECK:         onnxc.workspace %{{.*}}
// CHECK-NOT:     onnxc.reserve
// CHECK:         memref.view %[[STORAGE]][%{{.*}}][] : memref<?xi8> to memref<2xf32>
// CHECK:         scf.for
// CHECK:           %[[GROWN:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:           %[[CLAMPED:.*]] = arith.minsi %[[GROWN]], %{{.*}} : index
// CHECK:           %[[CAPPED:.*]] = arith.minsi %[[CLAMPED]], %{{.*}} : index
// CHECK:           %[[USED:.*]] = arith.muli %[[CAPPED]], %{{.*}} : index
// CHECK:           %[[ASKED:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      onnxc.workspace %[[ASKED]]
// CHECK-NEXT:      %[[NEXT:.*]] = memref.view %[[ARENA]][%[[SECOND]]][%[[GROWN]]] : memref<8xi8> to memref<?xf32>
// CHECK:           onnxc.workspace %{{.*}}
// CHECK-NOT:       onnxc.reserve
// CHECK:         }
// CHECK:         %[[FINAL:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         onnxc.workspace %{{.*}}
// CHECK-NEXT:    %[[AT:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %{{.*}} = memref.view %[[ARENA]][%[[AT]]][%[[FINAL]]] : memref<8xi8> to memref<?xf32>
