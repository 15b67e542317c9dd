// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Per axis: the scale and zero point are read along axis 1. The quotient is
// clamped to int8's range less the zero point (NaN gives the lowest value),
// rounded half to even by adding and subtracting 1.5 * 2^23, converted
// without saturation (it is in range) and the zero point added in int32.
func.func @per_axis(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>, %z: tensor<3xi8>) -> tensor<2x3x4xi8> {
  %y = "onnx.QuantizeLinear"(%x, %s, %z) <{axis = 1 : i64}> {onnx_node_name = "q"} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3x4xi8>
  func.return %y : tensor<2x3x4xi8>
}

// CHECK-LABEL: func.func @per_axis(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3x4xf32>, %[[S:[^:]*]]: memref<3xf32>, %[[Z:[^:]*]]: memref<3xi8>, %[[OUT:[^:]*]]: memref<2x3x4xi8>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[S]], %[[Z]] : {{.*}}) outs(%[[OUT]] : memref<2x3x4xi8>)
// CHECK-NEXT:    ^{{.*}}(%[[XE:[^:]*]]: f32, %[[SE:[^:]*]]: f32, %[[ZE:[^:]*]]: i8, %{{.*}}: i8):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[XE]], %[[SE]] : f32
// CHECK-NEXT:      %[[ZF:.*]] = arith.sitofp %[[ZE]] : i8 to f32
// CHECK-NEXT:      %[[MIN:.*]] = arith.constant -1.280000e+02 : f32
// CHECK-NEXT:      %[[LO:.*]] = arith.subf %[[MIN]], %[[ZF]] : f32
// CHECK-NEXT:      %[[MAX:.*]] = arith.constant 1.270000e+02 : f32
// CHECK-NEXT:      %[[HI:.*]] = arith.subf %[[MAX]], %[[ZF]] : f32
// CHECK-NEXT:      %[[GT:.*]] = arith.cmpf ogt, %[[Q]], %[[LO]] : f32
// CHECK-NEXT:      %[[A:.*]] = arith.select %[[GT]], %[[Q]], %[[LO]] : f32
// CHECK-NEXT:      %[[LT:.*]] = arith.cmpf olt, %[[A]], %[[HI]] : f32
// CHECK-NEXT:      %[[B:.*]] = arith.select %[[LT]], %[[A]], %[[HI]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.constant 0x4B400000 : f32
// CHECK-NEXT:      %[[UP:.*]] = arith.addf %[[B]], %[[M]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.subf %[[UP]], %[[M]] : f32
// CHECK-NEXT:      %[[I:.*]] = arith.fptosi %[[R]] {onnxc.in_range} : f32 to i32
// CHECK-NEXT:      %[[ZI:.*]] = arith.extsi %[[ZE]] : i8 to i32
// CHECK-NEXT:      %[[V:.*]] = arith.addi %[[I]], %[[ZI]] : i32
// CHECK-NEXT:      %[[Y:.*]] = arith.trunci %[[V]] : i32 to i8
// CHECK-NEXT:      linalg.yield %[[Y]] : i8

// -----

// Blocked along the last axis (5 = 2 + 2 + 1), no zero point: uint8. The
// division is in the scale's type (float16).
func.func @blocked_no_zero_point(%x: tensor<3x5xf16>, %s: tensor<3x3xf16>) -> tensor<3x5xui8> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.QuantizeLinear"(%x, %s, %n) <{axis = -1 : i64, block_size = 2 : i64}> {onnx_node_name = "q"} : (tensor<3x5xf16>, tensor<3x3xf16>, none) -> tensor<3x5xui8>
  func.return %y : tensor<3x5xui8>
}

// CHECK-LABEL: func.func @blocked_no_zero_point(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, (d1 floordiv 2))>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^{{.*}}(%[[XE:[^:]*]]: f16, %[[SE:[^:]*]]: f16, %{{.*}}: ui8):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[XE]], %[[SE]] : f16
// CHECK-NEXT:      %[[R:.*]] = math.roundeven %[[Q]] : f16
// CHECK-NEXT:      %[[V:.*]] = arith.extf %[[R]] : f16 to f32
// CHECK-NEXT:      %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[HI:.*]] = arith.constant 2.550000e+02 : f32
// CHECK-NEXT:      %[[A:.*]] = arith.maximumf %[[V]], %[[LO]] : f32
// CHECK-NEXT:      %[[B:.*]] = arith.minimumf %[[A]], %[[HI]] : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.fptoui %[[B]] : f32 to ui8
// CHECK-NEXT:      linalg.yield %[[Y]] : ui8

// -----

// To float8: no rounding; the zero point (of shape [1]: per tensor) is added
// and the sum converted saturating to the largest finite value, as Cast does.
func.func @float8(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<1xf8E5M2>) -> tensor<4xf8E5M2> {
  %y = "onnx.QuantizeLinear"(%x, %s, %z) {onnx_node_name = "q"} : (tensor<4xf32>, tensor<f32>, tensor<1xf8E5M2>) -> tensor<4xf8E5M2>
  func.return %y : tensor<4xf8E5M2>
}

// CHECK-LABEL: func.func @float8(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
// CHECK-NEXT:    ^{{.*}}(%[[XE:[^:]*]]: f32, %[[SE:[^:]*]]: f32, %[[ZE:[^:]*]]: f8E5M2, %{{.*}}: f8E5M2):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[XE]], %[[SE]] : f32
// CHECK-NEXT:      %[[ZF:.*]] = arith.extf %[[ZE]] : f8E5M2 to f32
// CHECK-NEXT:      %[[V:.*]] = arith.addf %[[Q]], %[[ZF]] : f32
// CHECK-NEXT:      %[[LO:.*]] = arith.constant -5.734400e+04 : f32
// CHECK-NEXT:      %[[A:.*]] = arith.maximumf %[[V]], %[[LO]] : f32
// CHECK-NEXT:      %[[HI:.*]] = arith.constant 5.734400e+04 : f32
// CHECK-NEXT:      %[[B:.*]] = arith.minimumf %[[A]], %[[HI]] : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.truncf %[[B]] : f32 to f8E5M2
// CHECK-NEXT:      linalg.yield %[[Y]] : f8E5M2

// -----

// saturate = 0: a plain conversion (out of range gives NaN for e4m3fn).
func.func @float8_no_saturation(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<f8E4M3FN>) -> tensor<4xf8E4M3FN> {
  %y = "onnx.QuantizeLinear"(%x, %s, %z) <{saturate = 0 : i64}> {onnx_node_name = "q"} : (tensor<4xf32>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<4xf8E4M3FN>
  func.return %y : tensor<4xf8E4M3FN>
}

// CHECK-LABEL: func.func @float8_no_saturation(
// CHECK:           %[[V:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.truncf %[[V]] : f32 to f8E4M3FN
// CHECK-NEXT:      linalg.yield %[[Y]] : f8E4M3FN
