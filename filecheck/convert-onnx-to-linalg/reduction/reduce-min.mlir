// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @reduce_min_u8(%x: tensor<2x3xui8>) -> tensor<3xui8> {
  %axes = "onnx.Constant"() <{value = dense<0> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.ReduceMin"(%x, %axes) <{keepdims = 0 : i64}> {onnx_node_name = "reduce_min"} : (tensor<2x3xui8>, tensor<1xi64>) -> tensor<3xui8>
  func.return %r : tensor<3xui8>
}

// CHECK-LABEL: func.func @reduce_min_u8(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xui8>, %[[OUT:[^:]*]]: memref<3xui8>)
// CHECK:         %[[HIGHEST:.*]] = arith.bitcast %{{.*}} : i8 to ui8
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[HIGHEST]] : ui8) outs(%[[OUT]] : memref<3xui8>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: ui8, %[[ACC:[^:]*]]: ui8):
// CHECK-NEXT:      %[[M:.*]] = arith.minui %[[ACC]], %[[V]] : ui8
// CHECK-NEXT:      linalg.yield %[[M]] : ui8
