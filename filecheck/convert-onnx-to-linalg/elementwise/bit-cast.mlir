// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @bit_cast_float_to_int(%x: tensor<2x3xf32>) -> tensor<2x3xi32> {
  %r = "onnx.BitCast"(%x) <{to = 6 : i64}> {onnx_node_name = "bc"} : (tensor<2x3xf32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @bit_cast_float_to_int
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: i32):
// CHECK-NEXT:      %[[V:.*]] = arith.bitcast %[[IN]] : f32 to i32
// CHECK-NEXT:      linalg.yield %[[V]] : i32

// -----

func.func @bit_cast_half_to_unsigned(%x: tensor<4xf16>) -> tensor<4xui16> {
  %r = "onnx.BitCast"(%x) <{to = 4 : i64}> {onnx_node_name = "bc"} : (tensor<4xf16>) -> tensor<4xui16>
  func.return %r : tensor<4xui16>
}

// CHECK-LABEL: func.func @bit_cast_half_to_unsigned
// CHECK:           arith.bitcast %{{.*}} : f16 to ui16

// -----

func.func @bit_cast_bool_to_byte(%x: tensor<4xi1>) -> tensor<4xui8> {
  %r = "onnx.BitCast"(%x) <{to = 2 : i64}> {onnx_node_name = "bc"} : (tensor<4xi1>) -> tensor<4xui8>
  func.return %r : tensor<4xui8>
}

// CHECK-LABEL: func.func @bit_cast_bool_to_byte
// CHECK:           %[[V:.*]] = arith.extui %{{.*}} : i1 to ui8
// CHECK-NEXT:      linalg.yield %[[V]] : ui8

// -----

func.func @bit_cast_byte_to_bool(%x: tensor<4xi8>) -> tensor<4xi1> {
  %r = "onnx.BitCast"(%x) <{to = 9 : i64}> {onnx_node_name = "bc"} : (tensor<4xi8>) -> tensor<4xi1>
  func.return %r : tensor<4xi1>
}

// CHECK-LABEL: func.func @bit_cast_byte_to_bool
// CHECK:           %[[B:.*]] = arith.bitcast %{{.*}} : i8 to ui8
// CHECK:           %[[V:.*]] = arith.cmpi ne, %[[B]], %{{.*}} : ui8
// CHECK-NEXT:      linalg.yield %[[V]] : i1

// -----

func.func @bit_cast_same_type(%x: tensor<4xi8>) -> tensor<4xi8> {
  %r = "onnx.BitCast"(%x) <{to = 3 : i64}> {onnx_node_name = "bc"} : (tensor<4xi8>) -> tensor<4xi8>
  func.return %r : tensor<4xi8>
}

// CHECK-LABEL: func.func @bit_cast_same_type
// CHECK-NOT:     BitCast bc
