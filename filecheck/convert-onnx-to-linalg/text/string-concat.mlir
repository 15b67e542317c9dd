// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// A first loop adds up the bytes of the results; a byte buffer of that size,
// which the planner keeps to the end (onnxc.string_bytes), receives them
// one after the other in a second loop.

func.func @concat(%a: tensor<3x!onnxc.string>, %b: tensor<!onnxc.string>) -> tensor<3x!onnxc.string> {
  %r = "onnx.StringConcat"(%a, %b) {onnx_node_name = "concat"} : (tensor<3x!onnxc.string>, tensor<!onnxc.string>) -> tensor<3x!onnxc.string>
  func.return %r : tensor<3x!onnxc.string>
}

// CHECK-LABEL: func.func @concat(
// CHECK:         %[[TOTAL:.*]] = scf.for {{.*}} iter_args(%[[SUM:.*]] = %{{.*}}) -> (index) {
// CHECK:           %[[A:.*]] = memref.load %a[%{{.*}}] : memref<3x!onnxc.string>
// CHECK:           %[[B:.*]] = memref.load %b[] : memref<!onnxc.string>
// CHECK-NEXT:      %[[NA:.*]] = onnxc.string_size %[[A]]
// CHECK-NEXT:      %[[NB:.*]] = onnxc.string_size %[[B]]
// CHECK-NEXT:      %[[BOTH:.*]] = arith.addi %[[NA]], %[[NB]] : index
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[SUM]], %[[BOTH]] : index
// CHECK-NEXT:      scf.yield %[[NEXT]] : index
// CHECK:         %[[BYTES:.*]] = memref.alloc(%[[TOTAL]]) {onnxc.string_bytes} : memref<?xi8>
// CHECK:         scf.for %[[I:.*]] = {{.*}} iter_args(%[[AT:.*]] = %{{.*}}) -> (index) {
// CHECK:           %[[JOINED:.*]] = onnxc.string_call "onnxc_string_concat"(%[[BYTES]], %[[AT]], %{{.*}}, %{{.*}}) : (memref<?xi8>, index, !onnxc.string, !onnxc.string) -> !onnxc.string
// CHECK-NEXT:      memref.store %[[JOINED]], %out0[%[[I]]] : memref<3x!onnxc.string>
// CHECK-NEXT:      %[[SIZE:.*]] = onnxc.string_size %[[JOINED]]
// CHECK-NEXT:      %{{.*}} = arith.addi %[[AT]], %[[SIZE]] : index
