// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Per row: the norm (L1: sum of |x|), then x / norm, x itself where the
// norm is 0.

// CHECK-LABEL: func.func @normalizer(
// CHECK-SAME:      %[[X:.*]]: memref<2x3xf32>, %[[Y:.*]]: memref<2x3xf32>)
// CHECK:         scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[NORM:.*]] = scf.for {{.*}} -> (f32) {
// CHECK:             math.absf
// CHECK:           %[[ZERO:.*]] = arith.cmpf oeq, %[[NORM]], %{{.*}} : f32
// CHECK:           scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             %[[Q:.*]] = arith.divf %[[V:.*]], %[[NORM]] : f32
// CHECK-NEXT:        %[[R:.*]] = arith.select %[[ZERO]], %[[V]], %[[Q]] : f32
// CHECK-NEXT:        memref.store %[[R]], %[[Y]][%[[N]], %[[C]]] : memref<2x3xf32>

func.func @normalizer(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx_ml.Normalizer"(%x) <{norm = "L1"}> {onnx_node_name = "normalizer"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
