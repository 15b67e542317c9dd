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

// -----

// float8e8m0 keeps float's exponent field, rounded by round_mode (nearest:
// the guard bit with the round, sticky or exponent bits), saturating below NaN.
func.func @cast_float_to_e8m0_nearest(%x: tensor<4xf32>) -> tensor<4xf8E8M0FNU> {
  %r = "onnx.Cast"(%x) <{to = 24 : i64, round_mode = "nearest"}> {onnx_node_name = "cast"} : (tensor<4xf32>) -> tensor<4xf8E8M0FNU>
  func.return %r : tensor<4xf8E8M0FNU>
}

// CHECK-LABEL: func.func @cast_float_to_e8m0_nearest
// CHECK:         linalg.generic
// CHECK:           %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK:           arith.constant 2139095040 : i32
// CHECK:           arith.shrsi
// CHECK:           arith.constant 4194304 : i32
// CHECK:           arith.constant 254 : i32
// CHECK:           %[[CODE:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:      %[[BYTE:.*]] = arith.trunci %[[CODE]] : i32 to ui8
// CHECK-NEXT:      %{{.*}} = arith.bitcast %[[BYTE]] : ui8 to f8E8M0FNU

// -----

// Packed 4-bit integers convert from floats through int32, then keep the low bits.
func.func @cast_float_to_int4(%x: tensor<5xf32>) -> tensor<5xi4> {
  %r = "onnx.Cast"(%x) <{to = 22 : i64}> {onnx_node_name = "cast"} : (tensor<5xf32>) -> tensor<5xi4>
  func.return %r : tensor<5xi4>
}

// CHECK-LABEL: func.func @cast_float_to_int4
// CHECK:           %[[W:.*]] = arith.fptosi %{{.*}} : f32 to i32
// CHECK-NEXT:      %[[N:.*]] = arith.trunci %[[W]] : i32 to i4
// CHECK-NEXT:      linalg.yield %[[N]] : i4
