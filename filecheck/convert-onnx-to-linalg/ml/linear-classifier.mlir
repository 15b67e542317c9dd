// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Scores are X @ coefficients^T + intercepts (a fill from the intercepts,
// then a reduction over the features); a loop over the samples picks the
// label of the first largest score and applies the post transform (SOFTMAX).

// CHECK-LABEL: func.func @linear_classifier(
// CHECK-SAME:      %[[X:.*]]: memref<2x3xf32>, %[[Y:.*]]: memref<2xi64>, %[[Z:.*]]: memref<2x2xf32>)
// CHECK:         %[[W:.*]] = memref.get_global @linear_coefficients : memref<2x3xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[W]] : memref<2x3xf32>, memref<2x3xf32>)
// CHECK:           arith.mulf
// CHECK-NEXT:      arith.addf
// CHECK:         scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           arith.cmpf ogt
// CHECK:           math.exp
// CHECK:           math.exp
// CHECK:           arith.divf
// CHECK:           memref.store %{{.*}}, %[[Y]][%[[N]]] : memref<2xi64>
// CHECK:           memref.store %{{.*}}, %[[Z]][%[[N]], %{{.*}}] : memref<2x2xf32>

func.func @linear_classifier(%x: tensor<2x3xf32>) -> (tensor<2xi64>, tensor<2x2xf32>) {
  %y, %z = "onnx_ml.LinearClassifier"(%x) <{coefficients = array<f32: 1.0, 2.0, 3.0, -1.0, 0.5, 0.25>, intercepts = array<f32: 0.5, -0.5>, classlabels_ints = array<i64: 4, 7>, post_transform = "SOFTMAX"}> {onnx_node_name = "linear"} : (tensor<2x3xf32>) -> (tensor<2xi64>, tensor<2x2xf32>)
  func.return %y, %z : tensor<2xi64>, tensor<2x2xf32>
}
