// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %r = "onnx.Concat"(%a, %b, %c) <{axis = -1 : i64}> {onnx_node_name = "concat"} : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  func.return %r : tensor<2x6xf32>
}

// CHECK-LABEL: func.func @concat
// CHECK-SAME:    (%[[A:.*]]: memref<2x3xf32>, %[[B:.*]]: memref<2x1xf32>, %[[C:.*]]: memref<2x2xf32>, %[[OUT:.*]]: memref<2x6xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, (d1 + 0))>], iterator_types = ["parallel", "parallel"]} ins(%[[A]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x6xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, (d1 + 3))>], iterator_types = ["parallel", "parallel"]} ins(%[[B]] : memref<2x1xf32>) outs(%[[OUT]] : memref<2x6xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, (d1 + 4))>], iterator_types = ["parallel", "parallel"]} ins(%[[C]] : memref<2x2xf32>) outs(%[[OUT]] : memref<2x6xf32>)
