// RUN: xdsl-opt -p onnx-infer-shapes --split-input-file %s | filecheck %s

// A size shape inference could not compute at import (here: the reshape's
// target was computed) becomes static once its shape tensor is a constant;
// the symbol it had goes, and the function's result type follows.
func.func @reshape_refined(%x: tensor<?x12xf32, ["N"]>) -> tensor<?x?x?xf32, ["N", "unk__0", "unk__1"]> attributes {onnxc.dims = ["N"]} {
  %s = "onnx.Constant"() <{value = dense<[0, 3, 4]> : tensor<3xi64>}> {onnx_node_name = "shape"} : () -> tensor<3xi64>
  %y = "onnx.Reshape"(%x, %s) {onnx_node_name = "Reshape_0"} : (tensor<?x12xf32, ["N"]>, tensor<3xi64>) -> tensor<?x?x?xf32, ["N", "unk__0", "unk__1"]>
  func.return %y : tensor<?x?x?xf32, ["N", "unk__0", "unk__1"]>
}

// CHECK-LABEL: func.func @reshape_refined
// CHECK-SAME:    -> tensor<?x3x4xf32, ["N"]>
// CHECK:         "onnx.Reshape"
// CHECK-SAME:    -> tensor<?x3x4xf32, ["N"]>

// -----

// A free dimension stays a symbol: inference knows no more of it.
func.func @free_dimension_kept(%x: tensor<?x4xf32, ["batch"]>) -> tensor<?x4xf32, ["batch"]> attributes {onnxc.dims = ["batch"]} {
  %y = "onnx.Relu"(%x) {onnx_node_name = "Relu_0"} : (tensor<?x4xf32, ["batch"]>) -> tensor<?x4xf32, ["batch"]>
  func.return %y : tensor<?x4xf32, ["batch"]>
}

// CHECK-LABEL: func.func @free_dimension_kept
// CHECK:         "onnx.Relu"(%{{.*}}) {{.*}} -> tensor<?x4xf32, ["batch"]>

// -----

// ai.onnx.ml operators are exported with their domain and refined too.
func.func @ml_refined(%x: tensor<3x2xf32>) -> (tensor<?xi64>, tensor<3x?xf32>) {
  %y, %z = "onnx_ml.LinearClassifier"(%x) <{coefficients = array<f32: 1.0, 2.0, 3.0, 4.0>, intercepts = array<f32: 0.5, -0.5>, classlabels_ints = array<i64: 4, 7>}> {onnx_node_name = "linear"} : (tensor<3x2xf32>) -> (tensor<?xi64>, tensor<3x?xf32>)
  func.return %y, %z : tensor<?xi64>, tensor<3x?xf32>
}

// CHECK-LABEL: func.func @ml_refined
// CHECK-SAME:    -> (tensor<3xi64>, tensor<3x2xf32>)
// CHECK:         "onnx_ml.LinearClassifier"
// CHECK-SAME:    -> (tensor<3xi64>, tensor<3x2xf32>)
