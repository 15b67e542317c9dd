// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// Padded and grouped: an int32 accumulator starts with the bias, the padded
// convolution's generic over (n, g, m, o...) gets the zero points as inputs
// and loops over the taps inside x; then requantized with w's scale per
// output channel.
func.func @qc(%x: tensor<1x2x4x4xui8>, %xs: tensor<f32>, %xz: tensor<ui8>, %w: tensor<4x1x3x3xi8>, %ws: tensor<4xf32>, %wz: tensor<4xi8>, %ys: tensor<f32>, %yz: tensor<ui8>, %b: tensor<4xi32>) -> tensor<1x4x4x4xui8> {
  %y = "onnx.QLinearConv"(%x, %xs, %xz, %w, %ws, %wz, %ys, %yz, %b) <{group = 2 : i64, pads = array<i64: 1, 1, 1, 1>}> {onnx_node_name = "qc"} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x1x3x3xi8>, tensor<4xf32>, tensor<4xi8>, tensor<f32>, tensor<ui8>, tensor<4xi32>) -> tensor<1x4x4x4xui8>
  func.return %y : tensor<1x4x4x4xui8>
}

// CHECK-LABEL: func.func @qc(
// CHECK-SAME:      %[[X:[^:]*]]: memref<1x2x4x4xui8>, %[[XS:[^:]*]]: memref<f32>, %[[XZ:[^:]*]]: memref<ui8>, %[[W:[^:]*]]: memref<4x1x3x3xi8>, %[[WS:[^:]*]]: memref<4xf32>, %[[WZ:[^:]*]]: memref<4xi8>, %[[YS:[^:]*]]: memref<f32>, %[[YZ:[^:]*]]: memref<ui8>, %[[B:[^:]*]]: memref<4xi32>, %[[OUT:[^:]*]]: memref<1x4x4x4xui8>)
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<1x4x4x4xi32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[B]] : memref<4xi32>) outs(%[[ACC]] : memref<1x4x4x4xi32>)
// CHECK:         %[[YV:.*]] = memref.expand_shape %[[ACC]]
// CHECK-NEXT:    %[[WZV:.*]] = memref.expand_shape %[[WZ]] {{\[\[}}0 : i64, 1 : i64]] output_shape [2, 2] {{.*}} : memref<4xi8> into memref<2x2xi8>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> ()>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d2)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[XZ]], %[[WZV]] : memref<ui8>, memref<2x2xi8>) outs(%[[YV]] : memref<1x2x2x4x4xi32>)
// CHECK-NEXT:    ^{{.*}}(%[[XZE:[^:]*]]: ui8, %[[WZE:[^:]*]]: i8, %{{.*}}: i32):
// CHECK:             scf.for
// CHECK:               %[[XE:.*]] = memref.load
// CHECK-NEXT:          %[[WE:.*]] = memref.load
// CHECK-NEXT:          %[[XW:.*]] = arith.extui %[[XE]] : ui8 to i32
// CHECK-NEXT:          %[[WW:.*]] = arith.extsi %[[WE]] : i8 to i32
// CHECK-NEXT:          %[[XZW:.*]] = arith.extui %[[XZE]] : ui8 to i32
// CHECK-NEXT:          %[[WZW:.*]] = arith.extsi %[[WZE]] : i8 to i32
// CHECK-NEXT:          %[[XC:.*]] = arith.subi %[[XW]], %[[XZW]] : i32
// CHECK-NEXT:          %[[WC:.*]] = arith.subi %[[WW]], %[[WZW]] : i32
// CHECK-NEXT:          %[[P:.*]] = arith.muli %[[XC]], %[[WC]] : i32
// CHECK-NEXT:          arith.addi %{{.*}}, %[[P]] : i32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[ACC]], %[[XS]], %[[WS]], %[[YS]], %[[YZ]] : {{.*}}) outs(%[[OUT]] : memref<1x4x4x4xui8>)
// CHECK:           arith.fptosi %{{.*}} {onnxc.in_range} : f32 to i32
// CHECK:           arith.trunci %{{.*}} : i32 to ui8
