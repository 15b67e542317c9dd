// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// CHECK-LABEL: func.func @conv_pads_bias(
// CHECK-SAME:      %[[X:.*]]: memref<1x2x5x5xf32>, %[[W:.*]]: memref<4x2x3x3xf32>, %[[B:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<1x4x5x5xf32>)
// CHECK:         %[[PADDED:.*]] = memref.alloc() : memref<1x2x7x7xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant {{.*}}0.000000e+00 : f32
// CHECK:         linalg.fill {{.*}}ins(%[[ZERO]] : f32) outs(%[[PADDED]] : memref<1x2x7x7xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, (d2 + 1), (d3 + 1))>], {{.*}} ins(%[[X]] : memref<1x2x5x5xf32>) outs(%[[PADDED]] : memref<1x2x7x7xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[B]] : memref<4xf32>) outs(%[[OUT]] : memref<1x4x5x5xf32>)
// CHECK:         %[[XV:.*]] = memref.expand_shape %[[PADDED]] {{\[\[}}0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [1, 1, 2, 7, 7]
// CHECK:         %[[WV:.*]] = memref.expand_shape %[[W]] {{\[\[}}0 : i64, 1 : i64], [2 : i64], [3 : i64], [4 : i64]] output_shape [1, 4, 2, 3, 3]
// CHECK:         %[[YV:.*]] = memref.expand_shape %[[OUT]] {{\[\[}}0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [1, 1, 4, 5, 5]
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, (d3 + d6), (d4 + d7))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[XV]], %[[WV]] : memref<1x1x2x7x7xf32>, memref<1x4x2x3x3xf32>) outs(%[[YV]] : memref<1x1x4x5x5xf32>) attrs = {onnxc.comment = "Conv conv"} {
// CHECK-NEXT:    ^{{.*}}(%[[XS:.*]]: f32, %[[WS:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[PROD:.*]] = arith.mulf %[[XS]], %[[WS]] : f32
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[ACC]], %[[PROD]] : f32
// CHECK-NEXT:      linalg.yield %[[SUM]] : f32

func.func @conv_pads_bias(%x: tensor<1x2x5x5xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x5x5xf32> {
  %y = "onnx.Conv"(%x, %w, %b) <{pads = array<i64: 1, 1, 1, 1>}> {onnx_node_name = "conv"} : (tensor<1x2x5x5xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  func.return %y : tensor<1x4x5x5xf32>
}

// -----

// CHECK-LABEL: func.func @conv_depthwise_strides(
// CHECK-SAME:      %[[X:.*]]: memref<1x3x6x6xf32>, %[[W:.*]]: memref<3x1x3x3xf32>, %[[OUT:.*]]: memref<1x3x2x2xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         %[[ZERO:.*]] = arith.constant {{.*}}0.000000e+00 : f32
// CHECK:         linalg.fill {{.*}}ins(%[[ZERO]] : f32) outs(%[[OUT]] : memref<1x3x2x2xf32>)
// CHECK:         %[[XV:.*]] = memref.expand_shape %[[X]] {{.*}} output_shape [1, 3, 1, 6, 6]
// CHECK:         %[[WV:.*]] = memref.expand_shape %[[W]] {{.*}} output_shape [3, 1, 1, 3, 3]
// CHECK:         %[[YV:.*]] = memref.expand_shape %[[OUT]] {{.*}} output_shape [1, 3, 1, 2, 2]
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, ((d3 * 2) + d6), ((d4 * 2) + d7))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], {{.*}} ins(%[[XV]], %[[WV]] : memref<1x3x1x6x6xf32>, memref<3x1x1x3x3xf32>) outs(%[[YV]] : memref<1x3x1x2x2xf32>)

func.func @conv_depthwise_strides(%x: tensor<1x3x6x6xf32>, %w: tensor<3x1x3x3xf32>) -> tensor<1x3x2x2xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.Conv"(%x, %w, %n) <{group = 3 : i64, strides = array<i64: 2, 2>}> {onnx_node_name = "dw"} : (tensor<1x3x6x6xf32>, tensor<3x1x3x3xf32>, none) -> tensor<1x3x2x2xf32>
  func.return %y : tensor<1x3x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @conv_1d_dilations_same_upper(
// CHECK-SAME:      %[[X:.*]]: memref<1x2x7xf32>, %[[W:.*]]: memref<3x2x3xf32>, %[[OUT:.*]]: memref<1x3x7xf32>)
// CHECK:         %[[PADDED:.*]] = memref.alloc() : memref<1x2x11xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, (d2 + 2))>], {{.*}} ins(%[[X]] : memref<1x2x7xf32>) outs(%[[PADDED]] : memref<1x2x11xf32>)
// CHECK:         linalg.fill {{.*}}outs(%[[OUT]] : memref<1x3x7xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, (d3 + (d5 * 2)))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}

func.func @conv_1d_dilations_same_upper(%x: tensor<1x2x7xf32>, %w: tensor<3x2x3xf32>) -> tensor<1x3x7xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.Conv"(%x, %w, %n) <{auto_pad = "SAME_UPPER", dilations = array<i64: 2>}> {onnx_node_name = "conv1d"} : (tensor<1x2x7xf32>, tensor<3x2x3xf32>, none) -> tensor<1x3x7xf32>
  func.return %y : tensor<1x3x7xf32>
}
