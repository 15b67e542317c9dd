// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Padding: no padded copy of X. A parallel generic over Y whose body sends
// interior outputs (1 <= oh, ow <= 3) to constant tap loops and the border to
// tap loops clamped to X.
// CHECK-LABEL: func.func @conv_pads_bias(
// CHECK-SAME:      %[[X:.*]]: memref<1x2x5x5xf32>, %[[W:.*]]: memref<4x2x3x3xf32>, %[[B:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<1x4x5x5xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[B]] : memref<4xf32>) outs(%[[OUT]] : memref<1x4x5x5xf32>)
// CHECK:         %[[XV:.*]] = memref.expand_shape %[[X]] {{\[\[}}0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [1, 1, 2, 5, 5]
// CHECK:         %[[WV:.*]] = memref.expand_shape %[[W]] {{\[\[}}0 : i64, 1 : i64], [2 : i64], [3 : i64], [4 : i64]] output_shape [1, 4, 2, 3, 3]
// CHECK:         %[[YV:.*]] = memref.expand_shape %[[OUT]] {{\[\[}}0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] output_shape [1, 1, 4, 5, 5]
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%[[YV]] : memref<1x1x4x5x5xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[N:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[G:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[M:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[OH:.*]] = linalg.index 3 : index
// CHECK-NEXT:      %[[OW:.*]] = linalg.index 4 : index
// CHECK:           %[[HSTART:.*]] = arith.subi %[[OH]], %{{.*}} : index
// CHECK:           %[[WSTART:.*]] = arith.subi %[[OW]], %{{.*}} : index
// CHECK:           %[[FIRST:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[H0:.*]] = arith.cmpi sge, %[[OH]], %[[FIRST]] : index
// CHECK-NEXT:      %[[LAST:.*]] = arith.constant 3 : index
// CHECK-NEXT:      %[[H1:.*]] = arith.cmpi sle, %[[OH]], %[[LAST]] : index
// CHECK:           %[[W0:.*]] = arith.cmpi sge, %[[OW]], %{{.*}} : index
// CHECK:           %[[W1:.*]] = arith.cmpi sle, %[[OW]], %{{.*}} : index
// CHECK-NEXT:      %[[AND0:.*]] = arith.andi %[[H0]], %[[H1]] : i1
// CHECK-NEXT:      %[[AND1:.*]] = arith.andi %[[AND0]], %[[W0]] : i1
// CHECK-NEXT:      %[[INSIDE:.*]] = arith.andi %[[AND1]], %[[W1]] : i1
// CHECK-NEXT:      %[[SUM:.*]] = scf.if %[[INSIDE]] -> (f32) {
// CHECK-NEXT:        %[[KH0:.*]] = arith.constant 0 : index
// CHECK-NEXT:        %[[KH3:.*]] = arith.constant 3 : index
// CHECK-NEXT:        %[[KW0:.*]] = arith.constant 0 : index
// CHECK-NEXT:        %[[KW3:.*]] = arith.constant 3 : index
// CHECK:             scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC_C:.*]] = %[[ACC]]) -> (f32) {
// CHECK:               scf.for %[[KH:.*]] = %[[KH0]] to %[[KH3]] step %{{.*}} iter_args(%{{.*}} = %[[ACC_C]]) -> (f32) {
// CHECK:                 scf.for %[[KW:.*]] = %[[KW0]] to %[[KW3]] step %{{.*}} iter_args(%[[ACC_K:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:              %[[IH:.*]] = arith.addi %[[HSTART]], %[[KH]] : index
// CHECK-NEXT:              %[[IW:.*]] = arith.addi %[[WSTART]], %[[KW]] : index
// CHECK-NEXT:              %[[XS:.*]] = memref.load %[[XV]][%[[N]], %[[G]], %[[C]], %[[IH]], %[[IW]]] : memref<1x1x2x5x5xf32>
// CHECK-NEXT:              %[[WS:.*]] = memref.load %[[WV]][%[[G]], %[[M]], %[[C]], %[[KH]], %[[KW]]] : memref<1x4x2x3x3xf32>
// CHECK-NEXT:              %[[PROD:.*]] = arith.mulf %[[XS]], %[[WS]] : f32
// CHECK-NEXT:              %[[NEXT:.*]] = arith.addf %[[ACC_K]], %[[PROD]] : f32
// CHECK-NEXT:              scf.yield %[[NEXT]] : f32
// CHECK:           } else {
// CHECK-NEXT:        %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:        %[[BEFORE:.*]] = arith.subi %[[ZERO]], %[[HSTART]] : index
// CHECK-NEXT:        %[[HLO:.*]] = arith.maxsi %[[BEFORE]], %[[ZERO]] : index
// CHECK-NEXT:        %[[KH:.*]] = arith.constant 3 : index
// CHECK-NEXT:        %[[H:.*]] = arith.constant 5 : index
// CHECK-NEXT:        %[[LEFT:.*]] = arith.subi %[[H]], %[[HSTART]] : index
// CHECK-NEXT:        %[[HHI:.*]] = arith.minsi %[[LEFT]], %[[KH]] : index
// CHECK:             %[[WLO:.*]] = arith.maxsi
// CHECK:             %[[WHI:.*]] = arith.minsi
// CHECK:             scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step
// CHECK:               scf.for %{{.*}} = %[[HLO]] to %[[HHI]] step
// CHECK:                 scf.for %{{.*}} = %[[WLO]] to %[[WHI]] step
// CHECK:                   memref.load %[[XV]]
// CHECK:           linalg.yield %[[SUM]] : f32

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

// SAME_UPPER with dilation 2 pads 2 on each side; the interior is 2 <= o <= 4
// and the border clamps to ceil(-start / 2) <= k < ceil((7 - start) / 2).
// CHECK-LABEL: func.func @conv_1d_dilations_same_upper(
// CHECK-SAME:      %[[X:.*]]: memref<1x2x7xf32>, %[[W:.*]]: memref<3x2x3xf32>, %[[OUT:.*]]: memref<1x3x7xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.fill {{.*}}outs(%[[OUT]] : memref<1x3x7xf32>)
// CHECK:         %[[XV:.*]] = memref.expand_shape %[[X]] {{.*}} output_shape [1, 1, 2, 7]
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK:           %[[O:.*]] = linalg.index 3 : index
// CHECK-NEXT:      %[[PAD:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[START:.*]] = arith.subi %[[O]], %[[PAD]] : index
// CHECK-NEXT:      %[[FIRST:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %{{.*}} = arith.cmpi sge, %[[O]], %[[FIRST]] : index
// CHECK-NEXT:      %[[LAST:.*]] = arith.constant 4 : index
// CHECK-NEXT:      %{{.*}} = arith.cmpi sle, %[[O]], %[[LAST]] : index
// CHECK:           scf.if
// CHECK:             scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK:               scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-NEXT:            %[[D:.*]] = arith.constant 2 : index
// CHECK-NEXT:            %[[OFFSET:.*]] = arith.muli %[[K]], %[[D]] : index
// CHECK-NEXT:          %[[I:.*]] = arith.addi %[[START]], %[[OFFSET]] : index
// CHECK-NEXT:          memref.load %[[XV]][%{{.*}}, %{{.*}}, %{{.*}}, %[[I]]] : memref<1x1x2x7xf32>
// CHECK:           } else {
// CHECK-NEXT:        %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:        %[[BEFORE:.*]] = arith.subi %[[ZERO]], %[[START]] : index
// CHECK-NEXT:        %[[CLAMPED:.*]] = arith.maxsi %[[BEFORE]], %[[ZERO]] : index
// CHECK-NEXT:        %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:        %[[BIASED:.*]] = arith.addi %[[CLAMPED]], %[[ONE]] : index
// CHECK-NEXT:        %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:        %[[LO:.*]] = arith.divsi %[[BIASED]], %[[TWO]] : index
// CHECK-NEXT:        %[[K:.*]] = arith.constant 3 : index
// CHECK-NEXT:        %[[SIZE:.*]] = arith.constant 7 : index
// CHECK-NEXT:        %[[LEFT:.*]] = arith.subi %[[SIZE]], %[[START]] : index
// CHECK-NEXT:        %[[ONE2:.*]] = arith.constant 1 : index
// CHECK-NEXT:        %[[BIASED2:.*]] = arith.addi %[[LEFT]], %[[ONE2]] : index
// CHECK-NEXT:        %[[TWO2:.*]] = arith.constant 2 : index
// CHECK-NEXT:        %[[CEIL:.*]] = arith.divsi %[[BIASED2]], %[[TWO2]] : index
// CHECK-NEXT:        %[[HI:.*]] = arith.minsi %[[CEIL]], %[[K]] : index
// CHECK:             scf.for %{{.*}} = %[[LO]] to %[[HI]] step

func.func @conv_1d_dilations_same_upper(%x: tensor<1x2x7xf32>, %w: tensor<3x2x3xf32>) -> tensor<1x3x7xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.Conv"(%x, %w, %n) <{auto_pad = "SAME_UPPER", dilations = array<i64: 2>}> {onnx_node_name = "conv1d"} : (tensor<1x2x7xf32>, tensor<3x2x3xf32>, none) -> tensor<1x3x7xf32>
  func.return %y : tensor<1x3x7xf32>
}
