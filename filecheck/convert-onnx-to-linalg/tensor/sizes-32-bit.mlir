// RUN: xdsl-opt -p 'convert-onnx-to-linalg{target=cortex-m4}' --split-input-file %s | filecheck %s

// On a 32-bit target the size limits are the 32-bit ones (2^20 elements, 16
// MiB a buffer), recorded on the function for plan-memory and the C printer,
// so that saturated sizes fit its ptrdiff_t.
func.func @add_broadcast(%x: tensor<?x4xf32, ["N"]>, %y: tensor<4xf32>) -> tensor<?x4xf32, ["N"]> attributes {onnxc.dims = ["N"], onnxc.input_names = ["x", "y"], onnxc.output_names = ["z"]} {
  %z = "onnx.Add"(%x, %y) {onnx_node_name = "Add_0"} : (tensor<?x4xf32, ["N"]>, tensor<4xf32>) -> tensor<?x4xf32, ["N"]>
  func.return %z : tensor<?x4xf32, ["N"]>
}

// CHECK-LABEL: func.func @add_broadcast(%N: index, %x: memref<?x4xf32>, %y: memref<4xf32>, %out0: memref<?x4xf32>)
// CHECK-SAME:      onnxc.size_limits = [1048576 : i64, 16777216 : i64]
// CHECK-NOT:     1099511627777
// CHECK:         onnxc.check %{{.*}}, "input x: no negative size, at most 2^20 elements"
// CHECK-NOT:     1099511627777
// CHECK:         func.return
