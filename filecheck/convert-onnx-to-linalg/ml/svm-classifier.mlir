// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// One-vs-one decision values: the kernels times a dense [pairs, vectors]
// coefficient table, summed in double as onnxruntime sums them; a loop over
// the samples votes and turns the pairwise probabilities (prob_a, prob_b)
// into class probabilities with at most 100 rounds of libsvm's method.

// CHECK-DAG:   "memref.global"() <{sym_name = "svc_pairs", type = memref<3x3xf32>, initial_value = dense<{{\[\[}}1.000000e+00, -5.000000e-01, 0.000000e+00], [7.500000e-01, 0.000000e+00, 2.500000e-01], [0.000000e+00, -1.000000e+00, 5.000000e-01]]>
// CHECK-LABEL: func.func @svm_classifier(
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : memref<2x3xf64>)
// CHECK:           arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      arith.extf %{{.*}} : f32 to f64
// CHECK-NEXT:      arith.addf %{{.*}}, %{{.*}} : f64
// CHECK:         scf.for
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK:           %[[ROUNDS:.*]] = arith.constant 100 : index
// CHECK:           scf.for %{{.*}} = %{{.*}} to %[[ROUNDS]] step %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, i1) {

func.func @svm_classifier(%x: tensor<2x2xf32>) -> (tensor<2xi64>, tensor<2x3xf32>) {
  %y, %z = "onnx_ml.SVMClassifier"(%x) <{kernel_type = "LINEAR", vectors_per_class = array<i64: 1, 1, 1>, support_vectors = array<f32: 0.0, 1.0, 1.0, -1.0, -2.0, 0.5>, coefficients = array<f32: 1.0, -0.5, 0.25, 0.75, -1.0, 0.5>, rho = array<f32: 0.1, -0.2, 0.3>, prob_a = array<f32: -1.5, -1.0, -2.0>, prob_b = array<f32: 0.1, -0.1, 0.2>, classlabels_ints = array<i64: 0, 1, 2>}> {onnx_node_name = "svc"} : (tensor<2x2xf32>) -> (tensor<2xi64>, tensor<2x3xf32>)
  func.return %y, %z : tensor<2xi64>, tensor<2x3xf32>
}
