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

// -----

// CHECK-LABEL: func.func @max_pool_ceil_mode(
// CHECK-SAME:      %[[X:.*]]: memref<1x2x5x5xf32>, %[[OUT:.*]]: memref<1x2x3x3xf32>)
// CHECK:         %[[PADDED:.*]] = memref.alloc() : memref<1x2x6x6xf32>
// CHECK:         %[[NEGINF:.*]] = arith.constant {{.*}}0xff800000 : f32
// CHECK:         linalg.fill {{.*}}ins(%[[NEGINF]] : f32) outs(%[[PADDED]] : memref<1x2x6x6xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, (d2 + 0), (d3 + 0))>], {{.*}} ins(%[[X]] : memref<1x2x5x5xf32>) outs(%[[PADDED]] : memref<1x2x6x6xf32>)
// CHECK:         %[[INIT:.*]] = arith.constant {{.*}}0xff800000 : f32
// CHECK:         linalg.fill {{.*}}ins(%[[INIT]] : f32) outs(%[[OUT]] : memref<1x2x3x3xf32>)
// CHECK:         %[[WINDOW:.*]] = memref.alloc() : memref<2x2xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, ((d2 * 2) + d4), ((d3 * 2) + d5))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[PADDED]], %[[WINDOW]] : memref<1x2x6x6xf32>, memref<2x2xf32>) outs(%[[OUT]] : memref<1x2x3x3xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[XS:.*]]: f32, %{{.*}}: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[MAX:.*]] = arith.maximumf %[[ACC]], %[[XS]] : f32
// CHECK-NEXT:      linalg.yield %[[MAX]] : f32

func.func @max_pool_ceil_mode(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y, %i = "onnx.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64}> {onnx_node_name = "pool"} : (tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<0xi64>)
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @max_pool_no_padding(
// CHECK-SAME:      %[[X:.*]]: memref<1x2x4x4xf32>, %[[OUT:.*]]: memref<1x2x2x2xf32>)
// CHECK:         linalg.fill {{.*}}outs(%[[OUT]] : memref<1x2x2x2xf32>)
// CHECK:         %[[WINDOW:.*]] = memref.alloc() : memref<2x2xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[WINDOW]] : memref<1x2x4x4xf32>, memref<2x2xf32>) outs(%[[OUT]] : memref<1x2x2x2xf32>)
// CHECK:           arith.maximumf

func.func @max_pool_no_padding(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %y, %i = "onnx.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> {onnx_node_name = "pool"} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<0xi64>)
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// CHECK:       "memref.global"() <{sym_name = "avg_divisor", type = memref<3x3xf32>, initial_value = dense<{{\[\[}}4.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 4.000000e+00]]> : memref<3x3xf32>, sym_visibility = "private", constant
// CHECK-LABEL: func.func @average_pool_exclude_pad(
// CHECK-SAME:      %[[X:.*]]: memref<1x1x3x3xf32>, %[[OUT:.*]]: memref<1x1x3x3xf32>)
// CHECK:         %[[PADDED:.*]] = memref.alloc() : memref<1x1x5x5xf32>
// CHECK:         linalg.fill {{.*}}outs(%[[PADDED]] : memref<1x1x5x5xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : memref<1x1x3x3xf32>) outs(%[[PADDED]] : memref<1x1x5x5xf32>)
// CHECK:         linalg.fill {{.*}}outs(%[[OUT]] : memref<1x1x3x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, (d2 + d4), (d3 + d5))>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>], {{.*}} ins(%[[PADDED]], %{{.*}} : memref<1x1x5x5xf32>, memref<3x3xf32>) outs(%[[OUT]] : memref<1x1x3x3xf32>)
// CHECK:           arith.addf
// CHECK:         %[[DIVISOR:.*]] = memref.get_global @avg_divisor : memref<3x3xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], {{.*}} ins(%[[DIVISOR]] : memref<3x3xf32>) outs(%[[OUT]] : memref<1x1x3x3xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[D:.*]]: f32, %[[S:.*]]: f32):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[S]], %[[D]] : f32
// CHECK-NEXT:      linalg.yield %[[Q]] : f32

func.func @average_pool_exclude_pad(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %y = "onnx.AveragePool"(%x) <{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>}> {onnx_node_name = "avg"} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  func.return %y : tensor<1x1x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @average_pool_uniform(
// CHECK-SAME:      %[[X:.*]]: memref<1x2x4x4xf32>, %[[OUT:.*]]: memref<1x2x2x2xf32>)
// CHECK-NOT:     memref.get_global
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %{{.*}} : memref<1x2x4x4xf32>, memref<2x2xf32>) outs(%[[OUT]] : memref<1x2x2x2xf32>)
// CHECK:           arith.addf
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], {{.*}} outs(%[[OUT]] : memref<1x2x2x2xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[S:.*]]: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[S]], %[[D]] : f32

func.func @average_pool_uniform(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %y = "onnx.AveragePool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> {onnx_node_name = "avg"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @global_average_pool(
// CHECK-SAME:      %[[X:.*]]: memref<2x3x4x5xf32>, %[[OUT:.*]]: memref<2x3x1x1xf32>)
// CHECK:         linalg.fill {{.*}}outs(%[[OUT]] : memref<2x3x1x1xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]] : memref<2x3x4x5xf32>) outs(%[[OUT]] : memref<2x3x1x1xf32>)
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}} outs(%[[OUT]] : memref<2x3x1x1xf32>)
// CHECK:           %[[D:.*]] = arith.constant 2.000000e+01 : f32
// CHECK-NEXT:      arith.divf %{{.*}}, %[[D]] : f32

func.func @global_average_pool(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32> {
  %y = "onnx.GlobalAveragePool"(%x) {onnx_node_name = "gap"} : (tensor<2x3x4x5xf32>) -> tensor<2x3x1x1xf32>
  func.return %y : tensor<2x3x1x1xf32>
}

// -----

// CHECK-NOT:   sym_name = "scale"
// CHECK-DAG:   "memref.global"() <{sym_name = "bn_addend", type = memref<2xf32>, initial_value = dense<[-5.000000e-01, -1.000000e+00]> : memref<2xf32>
// CHECK-DAG:   "memref.global"() <{sym_name = "bn_multiplier", type = memref<2xf32>, initial_value = dense<1.000000e+00> : memref<2xf32>
// CHECK-LABEL: func.func @batch_normalization_folded(
// CHECK-SAME:      %[[X:.*]]: memref<1x2x3x3xf32>, %[[OUT:.*]]: memref<1x2x3x3xf32>)
// CHECK-NEXT:    %[[A:.*]] = memref.get_global @bn_multiplier
// CHECK-NEXT:    %[[B:.*]] = memref.get_global @bn_addend
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], {{.*}} ins(%[[X]], %[[A]], %[[B]] : {{.*}}) outs(%[[OUT]] : memref<1x2x3x3xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[XS:.*]]: f32, %[[AS:.*]]: f32, %[[BS:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[XS]], %[[AS]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[P]], %[[BS]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

func.func @batch_normalization_folded(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %scale = "onnx.Constant"() <{value = dense<[2.0, 1.0]> : tensor<2xf32>}> {onnx_node_name = "scale"} : () -> tensor<2xf32>
  %bias = "onnx.Constant"() <{value = dense<[0.5, -1.0]> : tensor<2xf32>}> {onnx_node_name = "bias"} : () -> tensor<2xf32>
  %mean = "onnx.Constant"() <{value = dense<[1.0, 0.0]> : tensor<2xf32>}> {onnx_node_name = "mean"} : () -> tensor<2xf32>
  %var = "onnx.Constant"() <{value = dense<[4.0, 1.0]> : tensor<2xf32>}> {onnx_node_name = "var"} : () -> tensor<2xf32>
  %y, %rm, %rv = "onnx.BatchNormalization"(%x, %scale, %bias, %mean, %var) <{epsilon = 0.0 : f32}> {onnx_node_name = "bn"} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x3x3xf32>, tensor<0xf32>, tensor<0xf32>)
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @batch_normalization_runtime(
// CHECK-SAME:      %[[X:.*]]: memref<2x3xf32>, %[[SCALE:.*]]: memref<3xf32>, %[[BIAS:.*]]: memref<3xf32>, %[[MEAN:.*]]: memref<3xf32>, %[[VAR:.*]]: memref<3xf32>, %[[OUT:.*]]: memref<2x3xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], {{.*}} ins(%[[X]], %[[SCALE]], %[[BIAS]], %[[MEAN]], %[[VAR]] : {{.*}}) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[XS:.*]]: f32, %[[SS:.*]]: f32, %[[BS:.*]]: f32, %[[MS:.*]]: f32, %[[VS:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[EPS:.*]] = arith.constant 1.000000e-05 : f32
// CHECK-NEXT:      %[[C:.*]] = arith.subf %[[XS]], %[[MS]] : f32
// CHECK-NEXT:      %[[VE:.*]] = arith.addf %[[VS]], %[[EPS]] : f32
// CHECK-NEXT:      %[[STD:.*]] = math.sqrt %[[VE]] : f32
// CHECK-NEXT:      %[[N:.*]] = arith.divf %[[C]], %[[STD]] : f32
// CHECK-NEXT:      %[[SC:.*]] = arith.mulf %[[N]], %[[SS]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[SC]], %[[BS]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

func.func @batch_normalization_runtime(%x: tensor<2x3xf32>, %scale: tensor<3xf32>, %bias: tensor<3xf32>, %mean: tensor<3xf32>, %var: tensor<3xf32>) -> tensor<2x3xf32> {
  %y, %rm, %rv = "onnx.BatchNormalization"(%x, %scale, %bias, %mean, %var) {onnx_node_name = "bn"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<0xf32>, tensor<0xf32>)
  func.return %y : tensor<2x3xf32>
}
