// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// The pattern is a minimal DFA over UTF-8 bytes, compiled now: its byte
// classes, transitions (state x class) and accepting states are weights, and
// each string is one call of the runtime's matcher. "ab|c": states dead, start,
// after a, accepting; classes other, a, b, c.

func.func @regex(%x: tensor<2x!onnxc.string>) -> tensor<2xi1> {
  %y = "onnx.RegexFullMatch"(%x) {onnx_node_name = "match", pattern = "ab|c"} : (tensor<2x!onnxc.string>) -> tensor<2xi1>
  func.return %y : tensor<2xi1>
}

// CHECK-DAG:   "memref.global"() <{sym_name = "match_accepting", type = memref<4xui8>, initial_value = dense<[0, 0, 0, 1]> : memref<4xui8>
// CHECK-DAG:   "memref.global"() <{sym_name = "match_transitions", type = memref<16xui16>, initial_value = dense<[0, 0, 0, 0, 0, 2, 0, 3, 0, 0, 3, 0, 0, 0, 0, 0]> : memref<16xui16>
// CHECK-DAG:   "memref.global"() <{sym_name = "match_classes", type = memref<256xui8>
// CHECK-LABEL: func.func @regex(
// CHECK:         ^bb0(%[[S:.*]]: !onnxc.string, %{{.*}}: i1):
// CHECK-NEXT:      %[[CLASSES:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %[[START:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[FOUND:.*]] = onnxc.string_call "onnxc_regex_full_match"(%{{.*}}, %{{.*}}, %[[CLASSES]], %{{.*}}, %[[START]], %[[S]]) : (memref<256xui8>, memref<16xui16>, index, memref<4xui8>, index, !onnxc.string) -> i32
// CHECK:           %[[MATCH:.*]] = arith.cmpi ne, %[[FOUND]], %{{.*}} : i32
// CHECK-NEXT:      linalg.yield %[[MATCH]] : i1
