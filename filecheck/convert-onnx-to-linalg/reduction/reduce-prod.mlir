// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @reduce_prod(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %axes = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.ReduceProd"(%x, %axes) {onnx_node_name = "reduce_prod"} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  func.return %r : tensor<2x1xf32>
}

// CHECK-LABEL: func.func @reduce_prod(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x1xf32>)
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ONE]] : f32) outs(%[[OUT]] : memref<2x1xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]}
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:      linalg.yield %[[P]] : f32
