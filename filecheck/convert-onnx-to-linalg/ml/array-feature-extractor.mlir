// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Indices computed at run time are checked (ONNXC_ERR_SHAPE), then each
// output element loads X at its index.

// CHECK-LABEL: func.func @array_feature_extractor(
// CHECK-SAME:      %[[X:.*]]: memref<2x4xf32>, %[[I:.*]]: memref<3xi64>, %[[Z:.*]]: memref<2x3xf32>)
// CHECK:         %[[OK:.*]] = scf.for {{.*}} -> (i1) {
// CHECK:           arith.cmpi ult
// CHECK:         onnxc.check %[[OK]], "ArrayFeatureExtractor extract: every index is in [0, the size of X's last axis)"
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%[[Z]] : memref<2x3xf32>)
// CHECK:           %[[J:.*]] = memref.load %[[I]][%{{.*}}] : memref<3xi64>
// CHECK-NEXT:      %[[C:.*]] = arith.index_cast %[[J]] : i64 to index
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[X]][%{{.*}}, %[[C]]] : memref<2x4xf32>
// CHECK-NEXT:      linalg.yield %[[V]] : f32

func.func @array_feature_extractor(%x: tensor<2x4xf32>, %i: tensor<3xi64>) -> tensor<2x3xf32> {
  %z = "onnx_ml.ArrayFeatureExtractor"(%x, %i) {onnx_node_name = "extract"} : (tensor<2x4xf32>, tensor<3xi64>) -> tensor<2x3xf32>
  func.return %z : tensor<2x3xf32>
}
