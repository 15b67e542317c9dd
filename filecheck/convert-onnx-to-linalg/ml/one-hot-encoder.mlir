// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// CHECK:       "memref.global"() <{sym_name = "onehot_categories", type = memref<2xi64>, initial_value = dense<[2, 5]> : memref<2xi64>
// CHECK-LABEL: func.func @one_hot_encoder(
// CHECK-SAME:      %[[X:.*]]: memref<3xi64>, %[[Y:.*]]: memref<3x2xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%[[Y]] : memref<3x2xf32>)
// CHECK:           %[[CAT:.*]] = memref.load %{{.*}}
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[X]]
// CHECK-NEXT:      %[[HIT:.*]] = arith.cmpi eq, %[[V]], %[[CAT]] : i64
// CHECK:           arith.select %[[HIT]], %{{.*}}, %{{.*}} : f32

func.func @one_hot_encoder(%x: tensor<3xi64>) -> tensor<3x2xf32> {
  %y = "onnx_ml.OneHotEncoder"(%x) <{cats_int64s = array<i64: 2, 5>}> {onnx_node_name = "onehot"} : (tensor<3xi64>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}
