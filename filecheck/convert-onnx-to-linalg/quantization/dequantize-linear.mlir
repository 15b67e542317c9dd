// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Per axis: (x - zero point) * scale in float, rounded once to the output type.
func.func @per_axis(%x: tensor<2x3xui8>, %s: tensor<2xf16>, %z: tensor<2xui8>) -> tensor<2x3xf16> {
  %y = "onnx.DequantizeLinear"(%x, %s, %z) <{axis = 0 : i64}> {onnx_node_name = "dq"} : (tensor<2x3xui8>, tensor<2xf16>, tensor<2xui8>) -> tensor<2x3xf16>
  func.return %y : tensor<2x3xf16>
}

// CHECK-LABEL: func.func @per_axis(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xui8>, %[[S:[^:]*]]: memref<2xf16>, %[[Z:[^:]*]]: memref<2xui8>, %[[OUT:[^:]*]]: memref<2x3xf16>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[S]], %[[Z]] : {{.*}}) outs(%[[OUT]] : memref<2x3xf16>)
// CHECK-NEXT:    ^{{.*}}(%[[XE:[^:]*]]: ui8, %[[SE:[^:]*]]: f16, %[[ZE:[^:]*]]: ui8, %{{.*}}: f16):
// CHECK-NEXT:      %[[XF:.*]] = arith.uitofp %[[XE]] : ui8 to f32
// CHECK-NEXT:      %[[ZF:.*]] = arith.uitofp %[[ZE]] : ui8 to f32
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[XF]], %[[ZF]] : f32
// CHECK-NEXT:      %[[SF:.*]] = arith.extf %[[SE]] : f16 to f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[D]], %[[SF]] : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.truncf %[[P]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[Y]] : f16

// -----

// Blocked along axis 0 (4 = 3 + 1), float8 input without zero point.
func.func @blocked(%x: tensor<4x2xf8E4M3FN>, %s: tensor<2x2xf32>) -> tensor<4x2xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.DequantizeLinear"(%x, %s, %n) <{axis = 0 : i64, block_size = 3 : i64}> {onnx_node_name = "dq"} : (tensor<4x2xf8E4M3FN>, tensor<2x2xf32>, none) -> tensor<4x2xf32>
  func.return %y : tensor<4x2xf32>
}

// CHECK-LABEL: func.func @blocked(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ((d0 floordiv 3), d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^{{.*}}(%[[XE:[^:]*]]: f8E4M3FN, %[[SE:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[XF:.*]] = arith.extf %[[XE]] : f8E4M3FN to f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[XF]], %[[SE]] : f32
// CHECK-NEXT:      linalg.yield %[[P]] : f32
