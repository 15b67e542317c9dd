// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// A constant trip count and a condition passed through: scf.for, the
// carried value in a buffer initialised with a copy of its initial value,
// the scan output written at row `iteration`.
func.func @for_loop(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
  %m = "onnx.Constant"() <{value = dense<3> : tensor<i64>}> : () -> tensor<i64>
  %c = "onnx.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %v, %s = "onnx.Loop"(%m, %c, %x) ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<2xf32>):
    %next = "onnx.Add"(%acc, %x) {onnx_node_name = "add"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %keep = "onnx.Identity"(%cond) {onnx_node_name = "keep"} : (tensor<i1>) -> tensor<i1>
    "onnx.Yield"(%keep, %next, %acc) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> ()
  }) {onnx_node_name = "loop"} : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>)
  func.return %v, %s : tensor<2xf32>, tensor<3x2xf32>
}

// CHECK-LABEL: func.func @for_loop(
// CHECK-SAME:    %[[X:[^:]*]]: memref<2xf32>, %[[V:[^:]*]]: memref<2xf32>, %[[S:[^:]*]]: memref<3x2xf32>)
// CHECK:         scf.for %{{.*}} {
// CHECK:           memref.store %{{.*}}, %[[V]][%{{.*}}] : memref<2xf32>
// CHECK:         %[[THREE:.*]] = arith.constant 3 : index
// CHECK:         scf.for %[[IT:.*]] = %{{.*}} to %[[THREE]] step %{{.*}} {
// CHECK:           %[[NEXT:.*]] = memref.alloc() : memref<2xf32>
// CHECK:           linalg.generic {{.*}} ins(%[[V]], %[[X]] : memref<2xf32>, memref<2xf32>) outs(%[[NEXT]] : memref<2xf32>)
// The scan output (the carried value before this trip) is written first ...
// CHECK:           scf.for %[[J:.*]] = {{.*}} {
// CHECK-NEXT:        %[[E:.*]] = memref.load %[[V]][%[[J]]] : memref<2xf32>
// CHECK-NEXT:        memref.store %[[E]], %[[S]][%[[IT]], %[[J]]] : memref<3x2xf32>
// ... then the carried value.
// CHECK:           scf.for %[[K:.*]] = {{.*}} {
// CHECK-NEXT:        %[[F:.*]] = memref.load %[[NEXT]][%[[K]]] : memref<2xf32>
// CHECK-NEXT:        memref.store %[[F]], %[[V]][%[[K]]] : memref<2xf32>
// CHECK:         } {onnxc.comment = "Loop loop"}

// -----

// A condition the body computes: scf.while, testing the condition buffer
// and the trip count in `before`.
func.func @while_loop(%m: tensor<i64>, %x: tensor<f32>) -> tensor<f32> {
  %none = "onnx.NoValue"() : () -> none
  %v = "onnx.Loop"(%m, %none, %x) ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<f32>):
    %next = "onnx.Add"(%acc, %acc) {onnx_node_name = "double"} : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %go = "onnx.Less"(%next, %x) {onnx_node_name = "less"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "onnx.Yield"(%go, %next) : (tensor<i1>, tensor<f32>) -> ()
  }) {onnx_node_name = "loop"} : (tensor<i64>, none, tensor<f32>) -> tensor<f32>
  func.return %v : tensor<f32>
}

// CHECK-LABEL: func.func @while_loop(
// CHECK:         %[[COND:.*]] = memref.alloc() : memref<i1>
// CHECK:         memref.store %{{.*}}, %[[COND]][] : memref<i1>
// CHECK:         scf.while (%[[B:.*]] = %{{.*}}) : (index) -> index {
// CHECK-NEXT:      %[[GO:.*]] = memref.load %[[COND]][] : memref<i1>
// CHECK-NEXT:      %[[BELOW:.*]] = arith.cmpi slt, %[[B]], %{{.*}} : index
// CHECK-NEXT:      %[[BOTH:.*]] = arith.andi %[[GO]], %[[BELOW]] : i1
// CHECK-NEXT:      scf.condition(%[[BOTH]]) %[[B]] : index
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^{{.*}}(%[[IT:.*]]: index):
// CHECK:           arith.cmpf olt
// The condition is stored before the carried value is.
// CHECK:           memref.store %{{.*}}, %[[COND]][] : memref<i1>
// CHECK:           %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[FOLLOWING:.*]] = arith.addi %[[IT]], %[[ONE]] : index
// CHECK-NEXT:      scf.yield %[[FOLLOWING]] : index

// -----

// Carried values yielded swapped: one goes through a temporary first.
func.func @swap(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %m = "onnx.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %none = "onnx.NoValue"() : () -> none
  %x, %y = "onnx.Loop"(%m, %none, %a, %b) ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %p: tensor<2xf32>, %q: tensor<2xf32>):
    "onnx.Yield"(%cond, %q, %p) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> ()
  }) {onnx_node_name = "loop"} : (tensor<i64>, none, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  func.return %x, %y : tensor<2xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @swap(
// CHECK-SAME:    %{{[^:]*}}: memref<2xf32>, %{{[^:]*}}: memref<2xf32>, %[[P:[^:]*]]: memref<2xf32>, %[[Q:[^:]*]]: memref<2xf32>)
// CHECK:         scf.for
// CHECK:           %[[T1:.*]] = memref.alloc() : memref<2xf32>
// CHECK:             memref.store %{{.*}}, %[[T1]]
// CHECK:           %[[T2:.*]] = memref.alloc() : memref<2xf32>
// CHECK:             memref.store %{{.*}}, %[[T2]]
// CHECK:             memref.load %[[T1]]
// CHECK-NEXT:        memref.store %{{.*}}, %[[P]]
// CHECK:             memref.load %[[T2]]
// CHECK-NEXT:        memref.store %{{.*}}, %[[Q]]

// -----

// Scan outputs of a loop its condition may end early: one row per trip the
// trip count allows, in a buffer of its own; after the loop, the rows that ran
// (scf.while's result, at most M: the planner's bound) are copied out.
func.func @while_scanning(%x: tensor<f32>) -> (tensor<f32>, tensor<?xf32>) {
  %m = "onnx.Constant"() <{value = dense<8> : tensor<i64>}> : () -> tensor<i64>
  %none = "onnx.NoValue"() : () -> none
  %v, %rows = "onnx.Loop"(%m, %none, %x) ({
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<f32>):
    %next = "onnx.Add"(%acc, %acc) {onnx_node_name = "double"} : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %go = "onnx.Less"(%next, %x) {onnx_node_name = "less"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "onnx.Yield"(%go, %next, %next) : (tensor<i1>, tensor<f32>, tensor<f32>) -> ()
  }) {onnx_node_name = "loop"} : (tensor<i64>, none, tensor<f32>) -> (tensor<f32>, tensor<?xf32>)
  func.return %v, %rows : tensor<f32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @while_scanning(
// CHECK:         %[[ROWS:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         %[[RAN:.*]] = scf.while
// CHECK:           memref.store %{{.*}}, %[[ROWS]][%{{.*}}] : memref<8xf32>
// CHECK:         %[[COUNT:.*]] = arith.minsi %[[RAN]], %{{.*}} : index
// CHECK:         %rows = onnxc.output %out1[%[[COUNT]]] index 1
// CHECK:         scf.for %[[R:.*]] = %{{.*}} to %[[COUNT]] step %{{.*}} {
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[ROWS]][%[[R]]] : memref<8xf32>
// CHECK-NEXT:      memref.store %[[V]], %rows[%[[R]]] : memref<?xf32>
