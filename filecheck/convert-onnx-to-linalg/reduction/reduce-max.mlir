// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @reduce_max(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %axes = "onnx.Constant"() <{value = dense<-1> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.ReduceMax"(%x, %axes) <{keepdims = 0 : i64}> {onnx_node_name = "reduce_max"} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @reduce_max(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2xf32>)
// CHECK:         %[[LOWEST:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[LOWEST]] : f32) outs(%[[OUT]] : memref<2xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:      linalg.yield %[[M]] : f32

// -----

func.func @reduce_max_i8(%x: tensor<2x3xi8>) -> tensor<1x1xi8> {
  %none = "onnx.NoValue"() : () -> none
  %r = "onnx.ReduceMax"(%x, %none) {onnx_node_name = "reduce_max"} : (tensor<2x3xi8>, none) -> tensor<1x1xi8>
  func.return %r : tensor<1x1xi8>
}

// CHECK-LABEL: func.func @reduce_max_i8(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xi8>, %[[OUT:[^:]*]]: memref<1x1xi8>)
// CHECK:         %[[LOWEST:.*]] = arith.constant -128 : i8
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[LOWEST]] : i8) outs(%[[OUT]] : memref<1x1xi8>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, 0)>], iterator_types = ["reduction", "reduction"]}
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: i8, %[[ACC:[^:]*]]: i8):
// CHECK-NEXT:      %[[M:.*]] = arith.maxsi %[[ACC]], %[[V]] : i8
// CHECK-NEXT:      linalg.yield %[[M]] : i8

// -----

func.func @reduce_max_bool(%x: tensor<2x3xi1>) -> tensor<2x1xi1> {
  %axes = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.ReduceMax"(%x, %axes) {onnx_node_name = "reduce_max"} : (tensor<2x3xi1>, tensor<1xi64>) -> tensor<2x1xi1>
  func.return %r : tensor<2x1xi1>
}

// CHECK-LABEL: func.func @reduce_max_bool(
// CHECK:         %[[FALSE:.*]] = arith.constant false
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[FALSE]] : i1)
// CHECK:           arith.maxui %{{.*}}, %{{.*}} : i1
