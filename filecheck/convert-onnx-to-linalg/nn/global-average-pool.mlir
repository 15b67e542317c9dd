// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// CHECK-LABEL: func.func @global_average_pool(
// CHECK-SAME:      %[[X:.*]]: memref<2x3x4x5xf32>, %[[OUT:.*]]: memref<2x3x1x1xf32>)
// CHECK:         linalg.fill {{.*}}outs(%[[OUT]] : memref<2x3x1x1xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]] : memref<2x3x4x5xf32>) outs(%[[OUT]] : memref<2x3x1x1xf32>)
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}} outs(%[[OUT]] : memref<2x3x1x1xf32>)
// CHECK:           %[[D:.*]] = arith.constant 2.000000e+01 : f32
// CHECK-NEXT:      arith.divf %{{.*}}, %[[D]] : f32

func.func @global_average_pool(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32> {
  %y = "onnx.GlobalAveragePool"(%x) {onnx_node_name = "gap"} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  func.return %y : tensor<2x3x1x1xf32>
}
