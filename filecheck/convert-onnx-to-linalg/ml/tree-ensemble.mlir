// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// ml opset 5: the modes differ (BRANCH_LEQ, BRANCH_MEMBER), so a mode table
// picks the comparison; a member node's set is a slice of a constant table.
// aggregate_function 3 (MAX) keeps the largest leaf weight.

// CHECK-DAG:   "memref.global"() <{sym_name = "ensemble_mode", type = memref<4xi8>, initial_value = dense<[0, 6, 7, 7]> : memref<4xi8>
// CHECK-DAG:   "memref.global"() <{sym_name = "ensemble_members", type = memref<2xf32>, initial_value = dense<[1.000000e+00, 3.000000e+00]> : memref<2xf32>
// CHECK-LABEL: func.func @tree_ensemble(
// CHECK:         scf.for {{.*}} iter_args(%[[NODE:.*]] = %{{.*}}) -> (index) {
// CHECK:           %[[LEQ:.*]] = arith.cmpf ole
// CHECK:           %[[MODE:.*]] = memref.load %{{.*}}[%[[NODE]]] : memref<4xi8>
// CHECK:           %[[IS_MEMBER:.*]] = arith.cmpi eq, %[[MODE]], %{{.*}} : i8
// CHECK:           %[[IN:.*]] = scf.for {{.*}} -> (i1) {
// CHECK:             arith.cmpf oeq
// CHECK:           arith.select %[[IS_MEMBER]], %[[IN]], %[[LEQ]] : i1
// CHECK:         arith.cmpf ogt

func.func @tree_ensemble(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %y = "onnx_ml.TreeEnsemble"(%x) <{nodes_featureids = array<i64: 0, 2>, nodes_splits = dense<[0.5, 0.0]> : tensor<2xf32>, nodes_modes = dense<[0, 6]> : tensor<2xui8>, nodes_truenodeids = array<i64: 1, 0>, nodes_trueleafs = array<i64: 0, 1>, nodes_falsenodeids = array<i64: 1, 1>, nodes_falseleafs = array<i64: 1, 1>, leaf_targetids = array<i64: 0, 0>, leaf_weights = dense<[1.0, 2.0]> : tensor<2xf32>, tree_roots = array<i64: 0>, membership_values = dense<[1.0, 3.0]> : tensor<2xf32>, n_targets = 1 : i64, aggregate_function = 3 : i64}> {onnx_node_name = "ensemble"} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  func.return %y : tensor<2x1xf32>
}
