// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @reduce_l1(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %axes = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.ReduceL1"(%x, %axes) <{keepdims = 0 : i64}> {onnx_node_name = "reduce_l1"} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @reduce_l1(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[A:.*]] = math.absf %[[V]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[A]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
