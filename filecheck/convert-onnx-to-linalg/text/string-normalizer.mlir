// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// A first loop counts the strings that are not stop words (case-insensitive
// here: onnxc_string_among folds case) and the bytes of their upper-case forms;
// Y (from data, at least 1: an empty string when all are removed) receives
// the kept strings, case-changed into the byte buffer.

func.func @normalize(%x: tensor<3x!onnxc.string>) -> tensor<?x!onnxc.string> {
  %y = "onnx.StringNormalizer"(%x) {onnx_node_name = "normalize", case_change_action = "UPPER", stopwords = ["a", "the"]} : (tensor<3x!onnxc.string>) -> tensor<?x!onnxc.string>
  func.return %y : tensor<?x!onnxc.string>
}

// CHECK:       onnxc.string_global "normalize_stop" : memref<2x!onnxc.string> = #onnxc.strings<memref<2x!onnxc.string>, ["a", "the"]>
// CHECK-LABEL: func.func @normalize(
// CHECK:         %[[KEPT:.*]], %[[TOTAL:.*]] = scf.for
// CHECK:           %[[FOUND:.*]] = onnxc.string_call "onnxc_string_among"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!onnxc.string, memref<2x!onnxc.string>, index, i32) -> i32
// CHECK:           onnxc.string_call "onnxc_case_size"
// CHECK:         %[[BYTES:.*]] = memref.alloc(%[[TOTAL]]) {onnxc.string_bytes} : memref<?xi8>
// CHECK-NEXT:    %[[ONE:.*]] = arith.maxsi %[[KEPT]], %{{.*}} : index
// CHECK-NEXT:    %[[LENGTH:.*]] = arith.minsi %[[ONE]], %{{.*}} : index
// CHECK:         %y = onnxc.output %out0[%[[LENGTH]]] index 0
// CHECK:         memref.store %{{.*}}, %y[%{{.*}}] {{.*}}: memref<?x!onnxc.string>
// CHECK:         scf.for {{.*}} iter_args(%[[AT:.*]] = %{{.*}}, %[[OFFSET:.*]] = %{{.*}}) -> (index, index) {
// CHECK:           scf.if %[[KEEP:.*]] {
// CHECK:             %[[UP:.*]] = onnxc.string_call "onnxc_string_case"(%[[BYTES]], %[[OFFSET]], %{{.*}}, %{{.*}}) : (memref<?xi8>, index, !onnxc.string, i32) -> !onnxc.string
// CHECK-NEXT:        memref.store %[[UP]], %y[%[[AT]]] : memref<?x!onnxc.string>
