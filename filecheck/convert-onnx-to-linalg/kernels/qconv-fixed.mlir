// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// A kernel.qconv with fixed-point multipliers (int32 mantissa, right shift
// pairs) requantizes each int32 sum in 64-bit integers: the product by the
// mantissa, 2^62 added (non-negative), 2^(n-1) added and a logical right
// shift by n, 2^(62-n) taken off (round half up of sum * M / 2^n), clamped
// to the range less the zero point, and the zero point added. No float.
func.func @qconv(%x: tensor<1x2x3x3xi8>) -> tensor<1x3x3x3xi8> {
  %w = "onnx.Constant"() <{value = dense<16909060> : tensor<4x5xi32>}> {onnx_node_name = "w"} : () -> tensor<4x5xi32>
  %b = "onnx.Constant"() <{value = dense<[1, 2, 3, 0]> : tensor<4xi32>}> {onnx_node_name = "b"} : () -> tensor<4xi32>
  %s = "onnx.Constant"() <{value = dense<[[1073741824, 33], [1073741824, 33], [1073741824, 33], [0, 31]]> : tensor<4x2xi32>}> {onnx_node_name = "s"} : () -> tensor<4x2xi32>
  %y = "kernel.qconv"(%x, %w, %b, %s) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, kernel_shape = array<i64: 3, 3>, x_zero_point = 3 : i64, y_zero_point = -7 : i64}> {onnx_node_name = "conv"} : (tensor<1x2x3x3xi8>, tensor<4x5xi32>, tensor<4xi32>, tensor<4x2xi32>) -> tensor<1x3x3x3xi8>
  func.return %y : tensor<1x3x3x3xi8>
}

// CHECK-LABEL: func.func @qconv
// CHECK:         %[[M:.*]] = memref.load %{{.*}}[%[[ROW:.*]], %{{.*}}] : memref<4x2xi32>
// CHECK:         %[[N:.*]] = memref.load %{{.*}}[%[[ROW]], %{{.*}}] : memref<4x2xi32>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:    %[[SUM:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK-NEXT:    %[[M64:.*]] = arith.extsi %[[M]] : i32 to i64
// CHECK-NEXT:    %[[P:.*]] = arith.muli %[[SUM]], %[[M64]] : i64
// CHECK-NEXT:    %[[N64:.*]] = arith.extsi %[[N]] : i32 to i64
// CHECK-NEXT:    %[[BIAS:.*]] = arith.constant 4611686018427387904 : i64
// CHECK-NEXT:    %[[B:.*]] = arith.addi %[[P]], %[[BIAS]] : i64
// CHECK-NEXT:    %[[NM1:.*]] = arith.subi %[[N64]], %[[ONE]] : i64
// CHECK-NEXT:    %[[HALF:.*]] = arith.shli %[[ONE]], %[[NM1]] : i64
// CHECK-NEXT:    %[[R:.*]] = arith.addi %[[B]], %[[HALF]] : i64
// CHECK-NEXT:    %[[Q:.*]] = arith.shrui %[[R]], %[[N64]] : i64
// CHECK:         %[[OFF:.*]] = arith.shli %[[ONE]], %{{.*}} : i64
// CHECK-NEXT:    %[[V:.*]] = arith.subi %[[Q]], %[[OFF]] : i64
// CHECK:         arith.maxsi %[[V]], %{{.*}} : i64
// CHECK:         arith.minsi
// CHECK:         %[[Y:.*]] = arith.trunci %{{.*}} : i64 to i8
// CHECK-NEXT:    memref.store %[[Y]], %out0
// CHECK-NOT:     arith.mulf
// CHECK-NOT:     arith.sitofp
