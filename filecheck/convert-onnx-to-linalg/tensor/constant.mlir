// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// A constant becomes a private constant memref.global read by memref.get_global;
// outputs are trailing buffer arguments (destination-passing).

// CHECK: "memref.global"() <{sym_name = "w", type = memref<3xf32>, initial_value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : memref<3xf32>, sym_visibility = "private", constant, alignment = 16 : i64}>
// CHECK-LABEL: func.func @constant_weight(
// CHECK-SAME:    %[[X:.*]]: memref<3xf32>, %[[OUT:.*]]: memref<3xf32>)
// CHECK:         %[[W:.*]] = memref.get_global @w : memref<3xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[W]] : memref<3xf32>, memref<3xf32>) outs(%[[OUT]] : memref<3xf32>)
func.func @constant_weight(%x: tensor<3xf32>) -> tensor<3xf32> {
  %w = "onnx.Constant"() <{value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>}> {onnx_node_name = "w"} : () -> tensor<3xf32>
  %r = "onnx.Add"(%x, %w) {onnx_node_name = "add"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// -----

// An Identity is its input's buffer; returning an input copies it into the output.
// CHECK-LABEL: func.func @identity_output(
// CHECK-SAME:    %[[X:.*]]: memref<2x2xf32>, %[[OUT:.*]]: memref<2x2xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : memref<2x2xf32>) outs(%[[OUT]] : memref<2x2xf32>) attrs = {onnxc.comment = "copy to graph output"}
// CHECK-NEXT:    ^{{.*}}(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
func.func @identity_output(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = "onnx.Identity"(%x) {onnx_node_name = "id"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %r : tensor<2x2xf32>
}
