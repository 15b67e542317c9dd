// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Table-driven: the nodes are constant globals (read in place, never copied;
// index tables in the narrowest integer type that holds them, here int8),
// and each tree is walked a fixed number of steps (its depth, here 2), each
// step `node = x[feature[node]] <= threshold[node] ? true[node] : false[node]`;
// leaves are their own children. The reached leaf's entries are summed into a
// row of per-target scores.

// CHECK-DAG:   "memref.global"() <{sym_name = "trees_feature", type = memref<5xi8>, initial_value = dense<[0, 1, 0, 0, 0]> : memref<5xi8>, sym_visibility = "private", constant
// CHECK-DAG:   "memref.global"() <{sym_name = "trees_threshold", type = memref<5xf32>, initial_value = dense<[5.000000e-01, -1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]> : memref<5xf32>, sym_visibility = "private", constant
// CHECK-DAG:   "memref.global"() <{sym_name = "trees_true", type = memref<5xi8>, initial_value = dense<[1, 3, 2, 3, 4]> : memref<5xi8>, sym_visibility = "private", constant
// CHECK-DAG:   "memref.global"() <{sym_name = "trees_false", type = memref<5xi8>, initial_value = dense<[2, 4, 2, 3, 4]> : memref<5xi8>, sym_visibility = "private", constant
// CHECK-DAG:   "memref.global"() <{sym_name = "trees_leaf_weight", type = memref<3xf32>
// CHECK-LABEL: func.func @tree_ensemble_regressor(
// CHECK-SAME:      %[[X:.*]]: memref<4x2xf32>, %[[Y:.*]]: memref<4x1xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         %[[FEATURE:.*]] = memref.get_global @trees_feature : memref<5xi8>
// CHECK:         %[[THRESHOLD:.*]] = memref.get_global @trees_threshold : memref<5xf32>
// CHECK:         scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             %[[DEPTH:.*]] = arith.constant 2 : index
// CHECK:             %[[LEAF:.*]] = scf.for %{{.*}} = %{{.*}} to %[[DEPTH]] step %{{.*}} iter_args(%[[NODE:.*]] = %{{.*}}) -> (index) {
// CHECK:               %[[F:.*]] = memref.load %[[FEATURE]][%[[NODE]]] : memref<5xi8>
// CHECK:               %[[C:.*]] = arith.index_cast %[[F]] : i8 to index
// CHECK:               %[[V:.*]] = memref.load %[[X]][%[[N]], %[[C]]] : memref<4x2xf32>
// CHECK:               %[[TH:.*]] = memref.load %[[THRESHOLD]][%[[NODE]]] : memref<5xf32>
// CHECK:               %[[GO:.*]] = arith.cmpf ole, %[[V]], %[[TH]] : f32
// CHECK:               %[[CHILD:.*]] = arith.select %[[GO]], %{{.*}}, %{{.*}} : i8
// CHECK:               scf.yield %{{.*}} : index
// CHECK:             scf.for
// CHECK:               arith.addf
// CHECK:         memref.store %{{.*}}, %[[Y]]

func.func @tree_ensemble_regressor(%x: tensor<4x2xf32>) -> tensor<4x1xf32> {
  %y = "onnx_ml.TreeEnsembleRegressor"(%x) <{n_targets = 1 : i64, nodes_treeids = array<i64: 0, 0, 0, 0, 0>, nodes_nodeids = array<i64: 0, 1, 2, 3, 4>, nodes_featureids = array<i64: 0, 1, 0, 0, 0>, nodes_modes = ["BRANCH_LEQ", "BRANCH_LEQ", "LEAF", "LEAF", "LEAF"], nodes_values = array<f32: 0.5, -1.0, 0.0, 0.0, 0.0>, nodes_truenodeids = array<i64: 1, 3, 0, 0, 0>, nodes_falsenodeids = array<i64: 2, 4, 0, 0, 0>, target_treeids = array<i64: 0, 0, 0>, target_nodeids = array<i64: 2, 3, 4>, target_ids = array<i64: 0, 0, 0>, target_weights = array<f32: 1.0, 2.0, 3.0>}> {onnx_node_name = "trees"} : (tensor<4x2xf32>) -> tensor<4x1xf32>
  func.return %y : tensor<4x1xf32>
}
