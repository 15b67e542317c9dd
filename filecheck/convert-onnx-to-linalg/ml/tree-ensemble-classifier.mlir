// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Per sample: class scores and has-a-score flags are reset, every tree adds
// its leaf's class weights, and the label of the first largest scored class
// is picked among the int64 labels.

// CHECK-DAG:   "memref.global"() <{sym_name = "forest_leaf_target", type = memref<2xi8>, initial_value = dense<[0, 2]> : memref<2xi8>
// CHECK-LABEL: func.func @tree_ensemble_classifier(
// CHECK-SAME:      %[[X:.*]]: memref<2x2xf32>, %[[Y:.*]]: memref<2xi64>, %[[Z:.*]]: memref<2x3xf32>)
// CHECK:         %[[SCORES:.*]] = memref.alloc() : memref<3xf32>
// CHECK:         %[[HAS:.*]] = memref.alloc() : memref<3xi1>
// CHECK:         scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           scf.for
// CHECK:             arith.cmpf ogt
// CHECK:             scf.for
// CHECK:               memref.store %{{.*}}, %[[HAS]]
// CHECK:           memref.store %{{.*}}, %[[Y]][%[[N]]] : memref<2xi64>

func.func @tree_ensemble_classifier(%x: tensor<2x2xf32>) -> (tensor<2xi64>, tensor<2x3xf32>) {
  %y, %z = "onnx_ml.TreeEnsembleClassifier"(%x) <{nodes_treeids = array<i64: 0, 0, 0>, nodes_nodeids = array<i64: 0, 1, 2>, nodes_featureids = array<i64: 1, 0, 0>, nodes_modes = ["BRANCH_GT", "LEAF", "LEAF"], nodes_values = array<f32: 0.5, 0.0, 0.0>, nodes_truenodeids = array<i64: 1, 0, 0>, nodes_falsenodeids = array<i64: 2, 0, 0>, class_treeids = array<i64: 0, 0>, class_nodeids = array<i64: 1, 2>, class_ids = array<i64: 0, 2>, class_weights = array<f32: 1.0, 1.0>, classlabels_int64s = array<i64: 10, 20, 30>}> {onnx_node_name = "forest"} : (tensor<2x2xf32>) -> (tensor<2xi64>, tensor<2x3xf32>)
  func.return %y, %z : tensor<2xi64>, tensor<2x3xf32>
}
