// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// linear, zeros, align_corners: per output, the grid's two coordinates (the
// last for the last axis) mapped to positions in double, two taps along
// each axis, and four loads, each 0 where its taps leave X.
// CHECK-LABEL: func.func @grid_sample(
// CHECK-SAME:      %[[X:.*]]: memref<1x1x3x2xf32>, %[[G:.*]]: memref<1x2x4x2xf32>, %[[OUT:.*]]: memref<1x1x2x4xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%[[OUT]] : memref<1x1x2x4xf32>)
// CHECK:           %[[N:.*]] = linalg.index 0 : index
// CHECK:           %[[Y:.*]] = memref.load %[[G]][%[[N]], %{{.*}}, %{{.*}}, %{{.*}}] : memref<1x2x4x2xf32>
// CHECK-NEXT:      %[[YD:.*]] = arith.extf %[[Y]] : f32 to f64
// CHECK:           %[[FLOOR:.*]] = math.floor
// CHECK:           %[[INSIDE:.*]] = arith.andi
// CHECK:           arith.fptosi
// CHECK-COUNT-4:   memref.load %[[X]]
// CHECK:           %[[R:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

func.func @grid_sample(%x: tensor<1x1x3x2xf32>, %g: tensor<1x2x4x2xf32>) -> tensor<1x1x2x4xf32> {
  %y = "onnx.GridSample"(%x, %g) <{mode = "linear", padding_mode = "zeros", align_corners = 1 : i64}> {onnx_node_name = "gs"} : (tensor<1x1x3x2xf32>, tensor<1x2x4x2xf32>) -> tensor<1x1x2x4xf32>
  func.return %y : tensor<1x1x2x4xf32>
}

// -----

// nearest, border, int8: the position is rounded half to even and clamped
// when outside, then the element is read as it is (no arithmetic on it).
// CHECK-LABEL: func.func @grid_sample_nearest(
// CHECK-SAME:      %[[X:.*]]: memref<1x2x3x3xi8>, %[[G:.*]]: memref<1x2x2x2xf16>, %[[OUT:.*]]: memref<1x2x2x2xi8>)
// CHECK:           math.roundeven
// CHECK:           arith.maximumf
// CHECK:           arith.minimumf
// CHECK:           math.trunc
// CHECK:           %[[V:.*]] = memref.load %[[X]]
// CHECK-NEXT:      linalg.yield %[[V]] : i8

func.func @grid_sample_nearest(%x: tensor<1x2x3x3xi8>, %g: tensor<1x2x2x2xf16>) -> tensor<1x2x2x2xi8> {
  %y = "onnx.GridSample"(%x, %g) <{mode = "nearest", padding_mode = "border"}> {onnx_node_name = "gs"} : (tensor<1x2x3x3xi8>, tensor<1x2x2x2xf16>) -> tensor<1x2x2x2xi8>
  func.return %y : tensor<1x2x2x2xi8>
}
