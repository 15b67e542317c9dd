// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Each input's first inputdimensions[i] columns go side by side; the
// second input's third column is dropped.

// CHECK-LABEL: func.func @feature_vectorizer(
// CHECK-SAME:      %[[A:.*]]: memref<2x2xf32>, %[[B:.*]]: memref<2x3xf32>, %[[Y:.*]]: memref<2x4xf32>)
// CHECK:         linalg.fill
// CHECK:         memref.load %[[A]]
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    arith.addi %{{.*}}, %[[C0]] : index
// CHECK:         %[[TWO:.*]] = arith.constant 2 : index
// CHECK:         memref.load %[[B]]
// CHECK:         %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[AT:.*]] = arith.addi %{{.*}}, %[[C2]] : index
// CHECK-NEXT:    memref.store %{{.*}}, %[[Y]][%{{.*}}, %[[AT]]] : memref<2x4xf32>

func.func @feature_vectorizer(%a: tensor<2x2xf32>, %b: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %y = "onnx_ml.FeatureVectorizer"(%a, %b) <{inputdimensions = array<i64: 2, 2>}> {onnx_node_name = "vectorizer"} : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}
