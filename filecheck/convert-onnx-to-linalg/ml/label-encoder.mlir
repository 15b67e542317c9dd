// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// The keys and values are constant tables searched in order; the first
// equal key wins, the default where none is.

// CHECK-DAG:   "memref.global"() <{sym_name = "encoder_keys", type = memref<2xi64>, initial_value = dense<[1, 2]> : memref<2xi64>
// CHECK-DAG:   "memref.global"() <{sym_name = "encoder_values", type = memref<2xf32>, initial_value = dense<[5.000000e-01, 1.500000e+00]> : memref<2xf32>
// CHECK-LABEL: func.func @label_encoder(
// CHECK-SAME:      %[[X:.*]]: memref<3xi64>, %[[Y:.*]]: memref<3xf32>)
// CHECK:         scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[DEFAULT:.*]] = arith.constant -1.000000e+00 : f32
// CHECK:           %{{.*}}, %[[R:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[DEFAULT]]) -> (i1, f32) {
// CHECK:             arith.cmpi eq
// CHECK:           memref.store %[[R]], %[[Y]][%[[N]]] : memref<3xf32>

func.func @label_encoder(%x: tensor<3xi64>) -> tensor<3xf32> {
  %y = "onnx_ml.LabelEncoder"(%x) <{keys_int64s = array<i64: 1, 2>, values_floats = array<f32: 0.5, 1.5>, default_float = -1.0 : f32}> {onnx_node_name = "encoder"} : (tensor<3xi64>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}
