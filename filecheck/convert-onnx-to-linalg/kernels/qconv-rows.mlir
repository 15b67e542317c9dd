// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// The hosts' integer kernel (form "rows"): the image is first copied
// channels-last as unsigned bytes (an int8 x ^ 0x80 is x + 128), then each
// block of four output pixels has its windows gathered into four rows of 32
// bytes (9 taps x 2 channels, x's unsigned zero point 3 + 128 for a padding
// tap, zeros past 18 written once), and each block of four output channels
// (5 channels: one block and a last one) takes 16 dot products over the
// rows: unsigned times signed bytes, summed as int32 that cannot wrap
// (`nsw`: products below 2^15, rows below 2^16). The bias is added after,
// wrapping, and each sum requantized as it is stored.
func.func @rows(%x: tensor<1x2x3x3xi8>) -> tensor<1x5x3x3xi8> {
  %w = "onnx.Constant"() <{value = dense<1> : tensor<5x32xi8>}> {onnx_node_name = "w"} : () -> tensor<5x32xi8>
  %b = "onnx.Constant"() <{value = dense<[1, 2, 3, 4, 5]> : tensor<5xi32>}> {onnx_node_name = "b"} : () -> tensor<5xi32>
  %s = "onnx.Constant"() <{value = dense<0.125> : tensor<5xf32>}> {onnx_node_name = "s"} : () -> tensor<5xf32>
  %y = "kernel.qconv"(%x, %w, %b, %s) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_shape = array<i64: 3, 3>, x_zero_point = 3 : i64, y_zero_point = -7 : i64, form = "rows"}> {onnx_node_name = "conv"} : (tensor<1x2x3x3xi8>, tensor<5x32xi8>, tensor<5xi32>, tensor<5xf32>) -> tensor<1x5x3x3xi8>
  func.return %y : tensor<1x5x3x3xi8>
}

// CHECK-LABEL: func.func @rows
// CHECK:         %[[IMAGE:.*]] = memref.alloc() : memref<9x2xui8>
// CHECK:         %[[COLUMNS:.*]] = memref.alloc() : memref<4x32xui8>
// CHECK:         %[[EIGHTEEN:.*]] = arith.constant 18 : index
// CHECK:         scf.for %{{.*}} = %[[EIGHTEEN]] to %{{.*}} step %{{.*}} {
// CHECK:           memref.store %{{.*}}, %[[COLUMNS]]
// CHECK:         %[[FLIP:.*]] = arith.constant -128 : i8
// CHECK:         %[[FLIPPED:.*]] = arith.xori %{{.*}}, %[[FLIP]] : i8
// CHECK:         %[[BYTE:.*]] = arith.bitcast %[[FLIPPED]] : i8 to ui8
// CHECK:         memref.store %[[BYTE]], %[[IMAGE]]
// A tap of a gathered row: its two channels-last bytes, or 131 outside.
// CHECK:         scf.if %{{.*}} {
// CHECK:           memref.load %[[IMAGE]]
// CHECK:           memref.store %{{.*}}, %[[COLUMNS]]
// CHECK:         } else {
// CHECK:           arith.constant -125 : i8
// CHECK:           memref.store %{{.*}}, %[[COLUMNS]]
// The block: 16 sums carried over the 32 bytes of the rows.
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S00:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) {
// CHECK:           %[[U:.*]] = memref.load %[[COLUMNS]]
// CHECK:           %[[X0:.*]] = arith.extui %[[U]] : ui8 to i32
// CHECK:           %[[W:.*]] = memref.load %{{.*}} : memref<5x32xi8>
// CHECK:           %[[W0:.*]] = arith.extsi %[[W]] : i8 to i32
// CHECK:           %[[P:.*]] = arith.muli %[[X0]], %[[W0]] overflow<nsw> : i32
// CHECK:           arith.addi %[[S00]], %[[P]] overflow<nsw> : i32
// CHECK:         memref.load %{{.*}} : memref<5xi32>
// CHECK:         memref.load %{{.*}} : memref<5xf32>
// CHECK:         %[[TOTAL:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK:         arith.sitofp %[[TOTAL]] : i32 to f32
// CHECK:         arith.constant 0x4B400000 : f32
// CHECK:         memref.store %{{.*}} : memref<1x5x3x3xi8>
// The last channel: a block of one row, 4 sums.
// CHECK:         scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (i32, i32, i32, i32) {

// A 1x1 window of stride 1 without pads reads the channels-last rows
// themselves, 32 bytes long with zeros past its 3 channels; no gathering.
func.func @direct(%x: tensor<1x3x2x2xui8>) -> tensor<1x4x2x2xui8> {
  %w = "onnx.Constant"() <{value = dense<1> : tensor<4x32xi8>}> {onnx_node_name = "w"} : () -> tensor<4x32xi8>
  %b = "onnx.Constant"() <{value = dense<[1, 2, 3, 4]> : tensor<4xi32>}> {onnx_node_name = "b"} : () -> tensor<4xi32>
  %s = "onnx.Constant"() <{value = dense<0.125> : tensor<4xf32>}> {onnx_node_name = "s"} : () -> tensor<4xf32>
  %y = "kernel.qconv"(%x, %w, %b, %s) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, kernel_shape = array<i64: 1, 1>, x_zero_point = 3 : i64, y_zero_point = 7 : i64, form = "rows"}> {onnx_node_name = "conv"} : (tensor<1x3x2x2xui8>, tensor<4x32xi8>, tensor<4xi32>, tensor<4xf32>) -> tensor<1x4x2x2xui8>
  func.return %y : tensor<1x4x2x2xui8>
}

// CHECK-LABEL: func.func @direct
// CHECK:         %[[ROWS:.*]] = memref.alloc() : memref<4x32xui8>
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     arith.xori
// CHECK:         memref.store %{{.*}}, %[[ROWS]]
// CHECK-NOT:     scf.if
// CHECK:         scf.for %{{.*}} iter_args
// CHECK:           memref.load %[[ROWS]]
