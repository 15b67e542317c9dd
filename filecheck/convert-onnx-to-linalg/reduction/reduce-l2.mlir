// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @reduce_l2(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %axes = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.ReduceL2"(%x, %axes) <{keepdims = 0 : i64}> {onnx_node_name = "reduce_l2"} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @reduce_l2(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2xf32>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[SQ]] : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%[[OUT]] : memref<2xf32>)
// CHECK-NEXT:    ^bb0(%[[T:[^:]*]]: f32):
// CHECK-NEXT:      %[[R:.*]] = math.sqrt %[[T]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

// Integers: the sum of squares wraps, its root is taken in double and
// truncated.

func.func @reduce_l2_i32(%x: tensor<2x3xi32>) -> tensor<2xi32> {
  %axes = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.ReduceL2"(%x, %axes) <{keepdims = 0 : i64}> {onnx_node_name = "reduce_l2"} : (tensor<2x3xi32>, tensor<1xi64>) -> tensor<2xi32>
  func.return %r : tensor<2xi32>
}

// CHECK-LABEL: func.func @reduce_l2_i32(
// CHECK:           %[[SQ:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:      arith.addi %{{.*}}, %[[SQ]] : i32
// CHECK:         ^bb0(%[[T:[^:]*]]: i32):
// CHECK-NEXT:      %[[D:.*]] = arith.sitofp %[[T]] : i32 to f64
// CHECK-NEXT:      %[[R:.*]] = math.sqrt %[[D]] : f64
// CHECK-NEXT:      %[[I:.*]] = arith.fptosi %[[R]] : f64 to i32
// CHECK-NEXT:      linalg.yield %[[I]] : i32
