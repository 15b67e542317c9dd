// RUN: xdsl-opt --split-input-file --verify-diagnostics %s | filecheck %s

// The generated verifiers check the schema's type constraints, that one type
// variable binds one element type, required inputs, and property kinds.

func.func @element_type_not_allowed(%a: tensor<2xi64>) -> tensor<2xi64> {
  %r = "onnx.Sigmoid"(%a) : (tensor<2xi64>) -> tensor<2xi64>
  func.return %r : tensor<2xi64>
}
// CHECK: onnx.Sigmoid: input 'X' has type tensor(int64), expected one of tensor(bfloat16), tensor(double), tensor(float), tensor(float16)

// -----

func.func @type_variable_bound_twice(%a: tensor<2xf32>, %b: tensor<2xf64>) -> tensor<2xf32> {
  %r = "onnx.Add"(%a, %b) : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
// CHECK: onnx.Add: input 'B' has element type double, but type variable T is already float

// -----

func.func @required_input_missing(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = "onnx.NoValue"() : () -> none
  %r = "onnx.Relu"(%s) : (none) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}
// CHECK: operand 'X' at position 0 does not verify

// -----

func.func @property_of_wrong_kind(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Softmax"(%a) <{axis = "one"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}
// CHECK: "one" should be of base attribute integer
