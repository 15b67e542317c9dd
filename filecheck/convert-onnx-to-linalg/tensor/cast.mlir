// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @cast_float_to_int(%x: tensor<2x3xf32>) -> tensor<2x3xi32> {
  %r = "onnx.Cast"(%x) <{to = 6 : i64}> {onnx_node_name = "cast"} : (tensor<2x3xf32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @cast_float_to_int
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: i32):
// CHECK-NEXT:      %[[V:.*]] = arith.fptosi %[[IN]] : f32 to i32
// CHECK-NEXT:      linalg.yield %[[V]] : i32

// -----

func.func @cast_int_to_float(%x: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %r = "onnx.Cast"(%x) <{to = 1 : i64}> {onnx_node_name = "cast"} : (tensor<2x3xi64>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @cast_int_to_float
// CHECK:           arith.sitofp %{{.*}} : i64 to f32

// -----

func.func @cast_float_to_bool(%x: tensor<2x3xf32>) -> tensor<2x3xi1> {
  %r = "onnx.Cast"(%x) <{to = 9 : i64}> {onnx_node_name = "cast"} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @cast_float_to_bool
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[V:.*]] = arith.cmpf une, %{{.*}}, %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : i1

// -----

func.func @cast_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Cast"(%x) <{to = 1 : i64}> {onnx_node_name = "cast"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @cast_same_type
// CHECK-NOT:     Cast cast

// -----

func.func @cast_int_narrowing(%x: tensor<4xi64>) -> tensor<4xi32> {
  %r = "onnx.Cast"(%x) <{to = 6 : i64}> {onnx_node_name = "cast"} : (tensor<4xi64>) -> tensor<4xi32>
  func.return %r : tensor<4xi32>
}

// CHECK-LABEL: func.func @cast_int_narrowing
// CHECK:           arith.trunci %{{.*}} : i64 to i32

// -----

func.func @cast_bool_to_float(%x: tensor<4xi1>) -> tensor<4xf32> {
  %r = "onnx.Cast"(%x) <{to = 1 : i64}> {onnx_node_name = "cast"} : (tensor<4xi1>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @cast_bool_to_float
// CHECK:           arith.uitofp %{{.*}} : i1 to f32
