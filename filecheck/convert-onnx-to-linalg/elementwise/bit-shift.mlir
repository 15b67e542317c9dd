// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @bit_shift_left(%a: tensor<2x3xui8>, %b: tensor<3xui8>) -> tensor<2x3xui8> {
  %r = "onnx.BitShift"(%a, %b) <{direction = "LEFT"}> {onnx_node_name = "bit_shift_left"} : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  func.return %r : tensor<2x3xui8>
}

// CHECK-LABEL: func.func @bit_shift_left(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: ui8, %[[Y:[^:]*]]: ui8, %{{.*}}: ui8):
// CHECK-NEXT:      %[[SHLI:.*]] = arith.shli %[[X]], %[[Y]] : ui8
// CHECK-NEXT:      linalg.yield %[[SHLI]] : ui8

// -----

func.func @bit_shift_right_unsigned(%a: tensor<2x3xui32>, %b: tensor<3xui32>) -> tensor<2x3xui32> {
  %r = "onnx.BitShift"(%a, %b) <{direction = "RIGHT"}> {onnx_node_name = "bit_shift_right_unsigned"} : (tensor<2x3xui32>, tensor<3xui32>) -> tensor<2x3xui32>
  func.return %r : tensor<2x3xui32>
}

// CHECK-LABEL: func.func @bit_shift_right_unsigned(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: ui32, %[[Y:[^:]*]]: ui32, %{{.*}}: ui32):
// CHECK-NEXT:      %[[SHRUI:.*]] = arith.shrui %[[X]], %[[Y]] : ui32
// CHECK-NEXT:      linalg.yield %[[SHRUI]] : ui32

// -----

func.func @bit_shift_right_signed(%a: tensor<2x3xi16>, %b: tensor<3xi16>) -> tensor<2x3xi16> {
  %r = "onnx.BitShift"(%a, %b) <{direction = "RIGHT"}> {onnx_node_name = "bit_shift_right_signed"} : (tensor<2x3xi16>, tensor<3xi16>) -> tensor<2x3xi16>
  func.return %r : tensor<2x3xi16>
}

// CHECK-LABEL: func.func @bit_shift_right_signed(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: i16, %[[Y:[^:]*]]: i16, %{{.*}}: i16):
// CHECK-NEXT:      %[[SHRSI:.*]] = arith.shrsi %[[X]], %[[Y]] : i16
// CHECK-NEXT:      linalg.yield %[[SHRSI]] : i16
