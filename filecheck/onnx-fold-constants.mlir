// RUN: xdsl-opt -p onnx-fold-constants --split-input-file %s | filecheck %s

// The legacy PyTorch export of `x.view(x.size(0), -1)`.
func.func @flatten_chain(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %s = "onnx.Shape"(%x) {onnx_node_name = "Shape_0"} : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %i0 = "onnx.Constant"() <{value = dense<0> : tensor<i64>}> {onnx_node_name = "Constant_1"} : () -> tensor<i64>
  %g = "onnx.Gather"(%s, %i0) <{axis = 0 : i64}> {onnx_node_name = "Gather_2"} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %ax = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> {onnx_node_name = "Constant_3"} : () -> tensor<1xi64>
  %u = "onnx.Unsqueeze"(%g, %ax) {onnx_node_name = "Unsqueeze_4"} : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %m1 = "onnx.Constant"() <{value_ints = array<i64: -1>}> {onnx_node_name = "Constant_5"} : () -> tensor<1xi64>
  %c = "onnx.Concat"(%u, %m1) <{axis = 0 : i64}> {onnx_node_name = "Concat_6"} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %y = "onnx.Reshape"(%x, %c) {onnx_node_name = "Reshape_7"} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  func.return %y : tensor<2x12xf32>
}

// CHECK-LABEL: func.func @flatten_chain
// CHECK-NEXT:    %[[SHAPE:.*]] = "onnx.Constant"() <{value = dense<[2, -1]> : tensor<2xi64>}> {onnx_node_name = "Concat_6"} : () -> tensor<2xi64>
// CHECK-NEXT:    %[[Y:.*]] = "onnx.Reshape"(%{{.*}}, %[[SHAPE]])
// CHECK-NEXT:    func.return %[[Y]]

// -----

func.func @shape_slice(%x: tensor<2x3x4x5xf32>) -> tensor<2xi64> {
  %s = "onnx.Shape"(%x) <{start = 1 : i64, end = -1 : i64}> {onnx_node_name = "shape"} : (tensor<2x3x4x5xf32>) -> tensor<2xi64>
  func.return %s : tensor<2xi64>
}

// CHECK-LABEL: func.func @shape_slice
// CHECK-NEXT:    %[[S:.*]] = "onnx.Constant"() <{value = dense<[3, 4]> : tensor<2xi64>}> {onnx_node_name = "shape"}
// CHECK-NEXT:    func.return %[[S]]

// -----

func.func @size(%x: tensor<2x3x4xf32>) -> tensor<i64> {
  %s = "onnx.Size"(%x) {onnx_node_name = "size"} : (tensor<2x3x4xf32>) -> tensor<i64>
  func.return %s : tensor<i64>
}

// CHECK-LABEL: func.func @size
// CHECK-NEXT:    %[[S:.*]] = "onnx.Constant"() <{value = dense<24> : tensor<i64>}> {onnx_node_name = "size"}
// CHECK-NEXT:    func.return %[[S]]

// -----

func.func @cast_constant(%x: tensor<3xf32>) -> tensor<3xf32> {
  %w = "onnx.Constant"() <{value = dense<[1, -2, 3]> : tensor<3xi32>}> {onnx_node_name = "w"} : () -> tensor<3xi32>
  %c = "onnx.Cast"(%w) <{to = 1 : i64}> {onnx_node_name = "cast"} : (tensor<3xi32>) -> tensor<3xf32>
  %y = "onnx.Add"(%x, %c) {onnx_node_name = "add"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}

// CHECK-LABEL: func.func @cast_constant
// CHECK-NEXT:    %[[C:.*]] = "onnx.Constant"() <{value = dense<[1.000000e+00, -2.000000e+00, 3.000000e+00]> : tensor<3xf32>}> {onnx_node_name = "cast"}
// CHECK-NEXT:    "onnx.Add"(%{{.*}}, %[[C]])

// -----

func.func @constant_forms() -> (tensor<f32>, tensor<2xf32>, tensor<i64>, tensor<3xi64>) {
  %a = "onnx.Constant"() <{value_float = 1.500000e+00 : f32}> {onnx_node_name = "a"} : () -> tensor<f32>
  %b = "onnx.Constant"() <{value_floats = array<f32: 1.0, 2.5>}> {onnx_node_name = "b"} : () -> tensor<2xf32>
  %c = "onnx.Constant"() <{value_int = 7 : i64}> {onnx_node_name = "c"} : () -> tensor<i64>
  %d = "onnx.Constant"() <{value_ints = array<i64: 1, -2, 3>}> {onnx_node_name = "d"} : () -> tensor<3xi64>
  func.return %a, %b, %c, %d : tensor<f32>, tensor<2xf32>, tensor<i64>, tensor<3xi64>
}

// CHECK-LABEL: func.func @constant_forms
// CHECK-NEXT:    "onnx.Constant"() <{value = dense<1.500000e+00> : tensor<f32>}> {onnx_node_name = "a"}
// CHECK-NEXT:    "onnx.Constant"() <{value = dense<[1.000000e+00, 2.500000e+00]> : tensor<2xf32>}> {onnx_node_name = "b"}
// CHECK-NEXT:    "onnx.Constant"() <{value = dense<7> : tensor<i64>}> {onnx_node_name = "c"}
// CHECK-NEXT:    "onnx.Constant"() <{value = dense<[1, -2, 3]> : tensor<3xi64>}> {onnx_node_name = "d"}

// -----

func.func @dead_ops(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %w = "onnx.Constant"() <{value = dense<1.0> : tensor<3xf32>}> {onnx_node_name = "w"} : () -> tensor<3xf32>
  %a = "onnx.Add"(%x, %w) {onnx_node_name = "unused_add"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %r = "onnx.Relu"(%a) {onnx_node_name = "unused_relu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.Sigmoid"(%x) {onnx_node_name = "sigmoid"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @dead_ops
// CHECK-NEXT:    %[[Y:.*]] = "onnx.Sigmoid"
// CHECK-NEXT:    func.return %[[Y]]

// -----

func.func @runtime_kept(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %s = "onnx.Constant"() <{value = dense<[6]> : tensor<1xi64>}> {onnx_node_name = "s"} : () -> tensor<1xi64>
  %y = "onnx.Reshape"(%x, %s) {onnx_node_name = "reshape"} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<6xf32>
  func.return %y : tensor<6xf32>
}

// CHECK-LABEL: func.func @runtime_kept
// CHECK-NEXT:    %[[S:.*]] = "onnx.Constant"() <{value = dense<6> : tensor<1xi64>}>
// CHECK-NEXT:    "onnx.Reshape"(%{{.*}}, %[[S]])

// -----

func.func @optional_inputs() -> tensor<2xf32> {
  %d = "onnx.Constant"() <{value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>}> {onnx_node_name = "d"} : () -> tensor<4xf32>
  %s = "onnx.Constant"() <{value = dense<[3]> : tensor<1xi64>}> {onnx_node_name = "starts"} : () -> tensor<1xi64>
  %e = "onnx.Constant"() <{value = dense<[0]> : tensor<1xi64>}> {onnx_node_name = "ends"} : () -> tensor<1xi64>
  %t = "onnx.Constant"() <{value = dense<[-2]> : tensor<1xi64>}> {onnx_node_name = "steps"} : () -> tensor<1xi64>
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.Slice"(%d, %s, %e, %n, %t) {onnx_node_name = "slice"} : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, none, tensor<1xi64>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}

// CHECK-LABEL: func.func @optional_inputs
// CHECK-NEXT:    %[[Y:.*]] = "onnx.Constant"() <{value = dense<[4.000000e+00, 2.000000e+00]> : tensor<2xf32>}> {onnx_node_name = "slice"}
// CHECK-NEXT:    func.return %[[Y]]
