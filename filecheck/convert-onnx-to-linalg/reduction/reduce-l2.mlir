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

// -----

// A long float sum (20 terms) accumulates in double; the squares are computed
// in float, and the sum is rounded to float before its square root, so no
// double function is called.

func.func @reduce_l2_long(%x: tensor<4x5xf32>) -> tensor<f32> {
  %none = "onnx.NoValue"() : () -> none
  %r = "onnx.ReduceL2"(%x, %none) <{keepdims = 0 : i64}> {onnx_node_name = "reduce_l2"} : (tensor<4x5xf32>, none) -> tensor<f32>
  func.return %r : tensor<f32>
}

// CHECK-LABEL: func.func @reduce_l2_long(
// CHECK-SAME:      %[[X:[^:]*]]: memref<4x5xf32>, %[[OUT:[^:]*]]: memref<f32>)
// CHECK:         %[[SUM:.*]] = memref.alloc() : memref<f64>
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : memref<4x5xf32>) outs(%[[SUM]] : memref<f64>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f64):
// CHECK-NEXT:      %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[SQ]] : f32 to f64
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[W]] : f64
// CHECK:         linalg.generic {{.*}} outs(%[[SUM]] : memref<f64>)
// CHECK-NEXT:    ^bb0(%[[T:[^:]*]]: f64):
// CHECK-NEXT:      %[[F:.*]] = arith.truncf %[[T]] : f64 to f32
// CHECK-NEXT:      %[[R:.*]] = math.sqrt %[[F]] : f32
// CHECK-NEXT:      %[[B:.*]] = arith.extf %[[R]] : f32 to f64
// CHECK-NEXT:      linalg.yield %[[B]] : f64
// CHECK:         linalg.generic {{.*}} ins(%[[SUM]] : memref<f64>) outs(%[[OUT]] : memref<f32>)
// CHECK:           arith.truncf
