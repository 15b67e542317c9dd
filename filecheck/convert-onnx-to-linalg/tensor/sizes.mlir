// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// A free dimension is a leading index argument; a dynamic input or output is
// seen through onnxc.input / onnxc.output with its sizes, an input's element
// count checked first (computed without overflow); sizes that match
// (the same symbol) broadcast through the indexing maps, as static ones do.
func.func @add_broadcast(%x: tensor<?x4xf32, ["N"]>, %y: tensor<4xf32>) -> tensor<?x4xf32, ["N"]> attributes {onnxc.dims = ["N"], onnxc.input_names = ["x", "y"], onnxc.output_names = ["z"]} {
  %z = "onnx.Add"(%x, %y) {onnx_node_name = "Add_0"} : (tensor<?x4xf32, ["N"]>, tensor<4xf32>) -> tensor<?x4xf32, ["N"]>
  func.return %z : tensor<?x4xf32, ["N"]>
}

// CHECK-LABEL: func.func @add_broadcast(%N: index, %x: memref<?x4xf32>, %y: memref<4xf32>, %out0: memref<?x4xf32>)
// CHECK:         onnxc.check %{{.*}}, "input x: no negative size, at most 2^40 elements"
// CHECK:         %[[X:.*]] = onnxc.input %x[%N] index 0 : i64 : memref<?x4xf32> to memref<?x4xf32>
// CHECK-NEXT:    %[[Z:.*]] = onnxc.output %out0[%N] index 0 : i64
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %y : memref<?x4xf32>, memref<4xf32>) outs(%[[Z]] : memref<?x4xf32>)

// -----

// Two sizes that may or may not be 1: the result's size is chosen at run
// time (computed once, at the top, from the free dimensions), each input is
// checked to broadcast, and read in the body at `size == 1 ? 0 : index`.
func.func @may_broadcast(%x: tensor<?xf32, ["A"]>, %y: tensor<?xf32, ["B"]>) -> tensor<?xf32, ["C"]> attributes {onnxc.dims = ["A", "B"], onnxc.input_names = ["x", "y"], onnxc.output_names = ["z"]} {
  %z = "onnx.Add"(%x, %y) {onnx_node_name = "Add_0"} : (tensor<?xf32, ["A"]>, tensor<?xf32, ["B"]>) -> tensor<?xf32, ["C"]>
  func.return %z : tensor<?xf32, ["C"]>
}

// CHECK-LABEL: func.func @may_broadcast(%A: index, %B: index
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[AONE:.*]] = arith.cmpi eq, %A, %[[ONE]] : index
// CHECK-NEXT:    %[[C:.*]] = arith.select %[[AONE]], %B, %A : index
// CHECK:         %[[OK0:.*]] = arith.ori %[[AONE]], %{{.*}} : i1
// CHECK:         %[[OK1:.*]] = arith.ori
// CHECK:         onnxc.output %out0[%[[C]]] index 0
// CHECK-NEXT:    onnxc.check %[[OK0]], "Add Add_0: input 0 broadcasts"
// CHECK-NEXT:    onnxc.check %[[OK1]], "Add Add_0: input 1 broadcasts"
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
// CHECK:           arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      memref.load

// -----

// Shape values are followed as sizes: the Reshape's target [N, 2, 4] is
// known while lowering (the Shape/Concat chain computes it), so the reshape is
// a view with static strides, and the shape tensor, never read, is dropped.
func.func @reshape_from_shape(%x: tensor<?x8xf32, ["N"]>) -> tensor<?x2x4xf32, ["N"]> attributes {onnxc.dims = ["N"], onnxc.input_names = ["x"], onnxc.output_names = ["y"]} {
  %s = "onnx.Shape"(%x) <{end = 1 : i64}> {onnx_node_name = "Shape_0"} : (tensor<?x8xf32, ["N"]>) -> tensor<1xi64>
  %t = "onnx.Constant"() <{value = dense<[2, 4]> : tensor<2xi64>}> {onnx_node_name = "tail"} : () -> tensor<2xi64>
  %c = "onnx.Concat"(%s, %t) <{axis = 0 : i64}> {onnx_node_name = "Concat_1"} : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
  %y = "onnx.Reshape"(%x, %c) {onnx_node_name = "Reshape_2"} : (tensor<?x8xf32, ["N"]>, tensor<3xi64>) -> tensor<?x2x4xf32, ["N"]>
  func.return %y : tensor<?x2x4xf32, ["N"]>
}

// CHECK-LABEL: func.func @reshape_from_shape(%N: index
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.load
// CHECK:         memref.expand_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64]] output_shape [%N, 2, 4]

// -----

// Outputs whose sizes follow from the free dimensions are bound together,
// before anything is computed: the C writes every shape before it returns
// ONNXC_ERR_CAPACITY for any of them.
func.func @two_outputs(%x: tensor<?x4xf32, ["N"]>) -> (tensor<?x4xf32, ["N"]>, tensor<?x4xf32, ["M"]>) attributes {onnxc.dims = ["N"], onnxc.input_names = ["x"], onnxc.output_names = ["r", "c"]} {
  %r = "onnx.Relu"(%x) {onnx_node_name = "Relu_0"} : (tensor<?x4xf32, ["N"]>) -> tensor<?x4xf32, ["N"]>
  %c = "onnx.Concat"(%r, %x) {axis = 0 : i64, onnx_node_name = "Concat_1"} : (tensor<?x4xf32, ["N"]>, tensor<?x4xf32, ["N"]>) -> tensor<?x4xf32, ["M"]>
  func.return %r, %c : tensor<?x4xf32, ["N"]>, tensor<?x4xf32, ["M"]>
}

// CHECK-LABEL: func.func @two_outputs(
// CHECK:         onnxc.input %x
// CHECK:         %[[R:.*]] = onnxc.output %out0[%N] index 0
// CHECK-NEXT:    %[[C:.*]] = onnxc.output %out1[%{{.*}}] index 1
// CHECK-NEXT:    linalg.generic
// CHECK-SAME:      outs(%[[R]] : memref<?x4xf32>)
// CHECK:         func.return
