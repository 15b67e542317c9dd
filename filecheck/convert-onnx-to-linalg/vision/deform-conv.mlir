// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Two groups, two offset groups: output channel m reads input channels
// 2 * m + ci; the channel's offset group picks its offsets and mask. Each
// tap samples X bilinearly (in double) at its regular position plus its
// offset, and adds W * mask * the sample to an accumulator started at B[m].
// CHECK-LABEL: func.func @deform_conv(
// CHECK-SAME:      %[[X:.*]]: memref<1x4x3x3xf32>, %[[W:.*]]: memref<2x2x2x2xf32>, %[[O:.*]]: memref<1x16x2x2xf32>, %[[B:.*]]: memref<2xf32>, %[[M:.*]]: memref<1x8x2x2xf32>, %[[OUT:.*]]: memref<1x2x2x2xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%[[OUT]] : memref<1x2x2x2xf32>)
// CHECK:           %[[N:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[OC:.*]] = linalg.index 1 : index
// CHECK:           %[[BIAS:.*]] = memref.load %[[B]][%[[OC]]] : memref<2xf32>
// CHECK-NEXT:      %[[INIT:.*]] = arith.extf %[[BIAS]] : f32 to f64
// CHECK:           %[[SUM:.*]] = scf.for %[[CI:[^ ]+]] = {{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (f64) {
// CHECK:             %[[C:.*]] = arith.addi %{{.*}}, %[[CI]] : index
// CHECK:             scf.for %[[KH:[^ ]+]] = {{.*}} -> (f64) {
// CHECK:               scf.for %[[KW:[^ ]+]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f64) {
// CHECK:                 %[[DY:.*]] = memref.load %[[O]][%[[N]], %{{.*}}] : memref<1x16x2x2xf32>
// CHECK:                 math.floor
// CHECK:                 %[[DX:.*]] = memref.load %[[O]][%[[N]], %{{.*}}] : memref<1x16x2x2xf32>
// CHECK:                 math.floor
// CHECK-COUNT-4:         memref.load %[[X]][%[[N]], %[[C]], %{{.*}}, %{{.*}}] : memref<1x4x3x3xf32>
// CHECK:                 %[[WV:.*]] = memref.load %[[W]][%[[OC]], %[[CI]], %[[KH]], %[[KW]]] : memref<2x2x2x2xf32>
// CHECK:                 %[[MV:.*]] = memref.load %[[M]][%[[N]], %{{.*}}] : memref<1x8x2x2xf32>
// CHECK:                 %[[NEXT:.*]] = arith.addf %[[ACC]], %{{.*}} : f64
// CHECK-NEXT:            scf.yield %[[NEXT]] : f64
// CHECK:           %[[Y:.*]] = arith.truncf %[[SUM]] : f64 to f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32

func.func @deform_conv(%x: tensor<1x4x3x3xf32>, %w: tensor<2x2x2x2xf32>, %o: tensor<1x16x2x2xf32>, %b: tensor<2xf32>, %m: tensor<1x8x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %y = "onnx.DeformConv"(%x, %w, %o, %b, %m) <{group = 2 : i64, offset_group = 2 : i64}> {onnx_node_name = "dc"} : (tensor<1x4x3x3xf32>, tensor<2x2x2x2xf32>, tensor<1x16x2x2xf32>, tensor<2xf32>, tensor<1x8x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// Strides, pads and dilations, no B or mask, run-time sizes: the output's
// rows are checked against offset's, a window starts at o * stride - pad,
// tap k sits k * dilation further, and a tap reads 0 outside X.
// CHECK-LABEL: func.func @deform_conv_strided(%N: index, %H: index, %OH: index,
// CHECK:         onnxc.check %{{.*}}, "DeformConv dc: offset fits axis 2"
// CHECK:         linalg.generic
// CHECK:           %[[OY:.*]] = linalg.index 2 : index
// CHECK:           %[[SY:.*]] = arith.muli %[[OY]], %{{.*}} : index
// CHECK:           %[[Y0:.*]] = arith.subi %[[SY]], %{{.*}} : index
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:           scf.for %[[CI:[^ ]+]] = {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f64) {
// CHECK:             scf.for %[[KH:[^ ]+]] = {{.*}} -> (f64) {
// CHECK:               scf.for %[[KW:[^ ]+]] = {{.*}} -> (f64) {
// CHECK:                 %[[DY:.*]] = memref.load %{{.*}} : memref<?x8x?x2xf32>
// CHECK:                 %[[AT:.*]] = arith.addi %[[Y0]], %[[KH]] : index
// CHECK:                 %[[FLOOR:.*]] = math.floor
// CHECK:                 arith.cmpf olt, %[[FLOOR]], %{{.*}} : f64
// CHECK:                 %[[KX:.*]] = arith.muli %[[KW]], %{{.*}} : index
// CHECK:                 memref.load %w[%{{.*}}, %[[CI]], %[[KH]], %[[KW]]]
// CHECK-NOT:             memref.load
// CHECK:                 scf.yield

func.func @deform_conv_strided(%x: tensor<?x1x?x5xf32, ["N", "H"]>, %w: tensor<1x1x2x2xf32>, %o: tensor<?x8x?x2xf32, ["N", "OH"]>) -> tensor<?x1x?x2xf32, ["N", "OH"]> attributes {onnxc.dims = ["N", "H", "OH"], onnxc.input_names = ["x", "w", "o"], onnxc.output_names = ["y"]} {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.DeformConv"(%x, %w, %o, %n, %n) <{strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 0>, dilations = array<i64: 1, 2>}> {onnx_node_name = "dc"} : (tensor<?x1x?x5xf32, ["N", "H"]>, tensor<1x1x2x2xf32>, tensor<?x8x?x2xf32, ["N", "OH"]>, none, none) -> tensor<?x1x?x2xf32, ["N", "OH"]>
  func.return %y : tensor<?x1x?x2xf32, ["N", "OH"]>
}
