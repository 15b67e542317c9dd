// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// The keys and values are constant tables, the default after the values; a
// search in order finds the position of the first equal key (the default's,
// past the keys, where none is), and the value there is loaded.

// CHECK-DAG:   "memref.global"() <{sym_name = "encoder_keys", type = memref<2xi64>, initial_value = dense<[1, 2]> : memref<2xi64>
// CHECK-DAG:   "memref.global"() <{sym_name = "encoder_values", type = memref<3xf32>, initial_value = dense<[5.000000e-01, 1.500000e+00, -1.000000e+00]> : memref<3xf32>
// CHECK-LABEL: func.func @label_encoder(
// CHECK-SAME:      %[[X:.*]]: memref<3xi64>, %[[Y:.*]]: memref<3xf32>)
// CHECK:         %[[VALUES:.*]] = memref.get_global @encoder_values : memref<3xf32>
// CHECK:         scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[MISSING:.*]] = arith.constant 2 : index
// CHECK:           %[[AT:.*]] = scf.for {{.*}} iter_args(%[[FOUND:.*]] = %[[MISSING]]) -> (index) {
// CHECK:             %[[HIT:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:        %[[FIRST:.*]] = arith.cmpi eq, %[[FOUND]], %[[MISSING]] : index
// CHECK-NEXT:        %[[BOTH:.*]] = arith.andi %[[HIT]], %[[FIRST]] : i1
// CHECK-NEXT:        %{{.*}} = arith.select %[[BOTH]], %{{.*}}, %[[FOUND]] : index
// CHECK:           %[[R:.*]] = memref.load %[[VALUES]][%[[AT]]] : memref<3xf32>
// CHECK-NEXT:      memref.store %[[R]], %[[Y]][%[[N]]] : memref<3xf32>

func.func @label_encoder(%x: tensor<3xi64>) -> tensor<3xf32> {
  %y = "onnx_ml.LabelEncoder"(%x) <{keys_int64s = array<i64: 1, 2>, values_floats = array<f32: 0.5, 1.5>, default_float = -1.0 : f32}> {onnx_node_name = "encoder"} : (tensor<3xi64>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}

// -----

// String keys compare with onnxc.string_equal; string values (the default
// "_Unused" after them) are an onnxc.string_global.

// CHECK-DAG:   onnxc.string_global "strings_keys" : memref<2x!onnxc.string> = #onnxc.strings<memref<2x!onnxc.string>, ["cat", "dog"]>
// CHECK-DAG:   onnxc.string_global "strings_values" : memref<3x!onnxc.string> = #onnxc.strings<memref<3x!onnxc.string>, ["Katze", "Hund", "_Unused"]>
// CHECK-LABEL: func.func @strings(
// CHECK:             onnxc.string_equal
// CHECK:           memref.load %{{.*}}[%{{.*}}] : memref<3x!onnxc.string>

func.func @strings(%x: tensor<3x!onnxc.string>) -> tensor<3x!onnxc.string> {
  %y = "onnx_ml.LabelEncoder"(%x) <{keys_strings = ["cat", "dog"], values_strings = ["Katze", "Hund"]}> {onnx_node_name = "strings"} : (tensor<3x!onnxc.string>) -> tensor<3x!onnxc.string>
  func.return %y : tensor<3x!onnxc.string>
}

// -----

// More than eight keys are sorted, the first of equal keys kept (1 -> 1, not
// 9), and bisected: ceil(log2 9) = 4 halvings, then one equality test.

// CHECK-DAG:   "memref.global"() <{sym_name = "bisected_values", type = memref<10xi64>, initial_value = dense<[1, 3, 5, 7, 8, 6, 4, 2, 0, -1]> : memref<10xi64>
// CHECK-DAG:   "memref.global"() <{sym_name = "bisected_keys", type = memref<9x1xi64>, initial_value = dense<{{\[}}[1], [2], [3], [4], [5], [6], [7], [8], [9]]> : memref<9x1xi64>
// CHECK-LABEL: func.func @bisected(
// CHECK:           %[[STEPS:.*]] = arith.constant 4 : index
// CHECK:           %[[LO:.*]], %{{.*}} = scf.for %{{.*}} = %{{.*}} to %[[STEPS]] step %{{.*}} iter_args
// CHECK:             arith.cmpi slt
// CHECK:           %[[KEY:.*]] = memref.load %{{.*}}[%[[LO]], %{{.*}}] : memref<9x1xi64>
// CHECK-NEXT:      %[[EQUAL:.*]] = arith.cmpi eq, %{{.*}}, %[[KEY]] : i64
// CHECK-NEXT:      %[[MISSING:.*]] = arith.constant 9 : index
// CHECK-NEXT:      %[[AT:.*]] = arith.select %[[EQUAL]], %[[LO]], %[[MISSING]] : index
// CHECK-NEXT:      %{{.*}} = memref.load %{{.*}}[%[[AT]]] : memref<10xi64>

func.func @bisected(%x: tensor<3xi64>) -> tensor<3xi64> {
  %y = "onnx_ml.LabelEncoder"(%x) <{keys_int64s = array<i64: 9, 1, 8, 2, 7, 3, 6, 4, 5, 1>, values_int64s = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9>}> {onnx_node_name = "bisected"} : (tensor<3xi64>) -> tensor<3xi64>
  func.return %y : tensor<3xi64>
}
