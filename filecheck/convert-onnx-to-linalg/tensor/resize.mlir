// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @resize_nearest(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x6xf32> {
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 3.0]> : tensor<4xf32>}> {onnx_node_name = "scales"} : () -> tensor<4xf32>
  %r = "onnx.Resize"(%x, %n, %s, %n) <{mode = "nearest"}> {onnx_node_name = "up"} : (tensor<1x1x2x2xf32>, none, tensor<4xf32>, none) -> tensor<1x1x4x6xf32>
  func.return %r : tensor<1x1x4x6xf32>
}

// The N and C axes (scale 1) are read as they are; H and W map half_pixel
// coordinates, round_prefer_floor (ceil(x - 0.5)), clamp: computed once per
// output row and column into tables of int32, which the generic reads.
// CHECK-LABEL: func.func @resize_nearest
// CHECK-SAME:    (%[[X:.*]]: memref<1x1x2x2xf32>, %[[Y:.*]]: memref<1x1x4x6xf32>)
// CHECK:         %[[ROWS:.*]] = memref.alloc() {onnxc.comment = "Resize up"} : memref<4xi32>
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           arith.sitofp %{{.*}} : i64 to f64
// CHECK:           arith.divf
// CHECK:           %[[HALF:.*]] = arith.subf
// CHECK:           %[[ROUNDED:.*]] = math.ceil %{{.*}} : f64
// CHECK-NEXT:      %[[WIDE:.*]] = arith.fptosi %[[ROUNDED]] : f64 to i64
// CHECK-NEXT:      %[[P:.*]] = arith.index_cast %[[WIDE]] : i64 to index
// CHECK:           arith.maxsi %[[P]]
// CHECK:           %[[ROW:.*]] = arith.minsi
// CHECK-NEXT:      %[[NARROW:.*]] = arith.index_cast %[[ROW]] : index to i32
// CHECK-NEXT:      memref.store %[[NARROW]], %[[ROWS]][%[[I]]] : memref<4xi32>
// CHECK:         %[[COLUMNS:.*]] = memref.alloc() {onnxc.comment = "Resize up"} : memref<6xi32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%[[Y]] : memref<1x1x4x6xf32>)
// CHECK:           %[[N:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[C:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[H:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[W:.*]] = linalg.index 3 : index
// CHECK-NEXT:      %[[R:.*]] = memref.load %[[ROWS]][%[[H]]] : memref<4xi32>
// CHECK-NEXT:      %[[RI:.*]] = arith.index_cast %[[R]] : i32 to index
// CHECK-NEXT:      %[[Q:.*]] = memref.load %[[COLUMNS]][%[[W]]] : memref<6xi32>
// CHECK-NEXT:      %[[QI:.*]] = arith.index_cast %[[Q]] : i32 to index
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[X]][%[[N]], %[[C]], %[[RI]], %[[QI]]] : memref<1x1x2x2xf32>
// CHECK-NEXT:      linalg.yield %[[V]] : f32

// -----

func.func @resize_linear(%x: tensor<1x1x2x2xf16>) -> tensor<1x1x4x4xf16> {
  %n = "onnx.NoValue"() : () -> none
  %s = "onnx.Constant"() <{value = dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>}> {onnx_node_name = "scales"} : () -> tensor<4xf32>
  %r = "onnx.Resize"(%x, %n, %s, %n) <{mode = "linear"}> {onnx_node_name = "up"} : (tensor<1x1x2x2xf16>, none, tensor<4xf32>, none) -> tensor<1x1x4x4xf16>
  func.return %r : tensor<1x1x4x4xf16>
}

// Two taps per resized axis, weighted max(1 - |j - ratio|, 0), summed in double.
// CHECK-LABEL: func.func @resize_linear
// CHECK:         linalg.generic
// CHECK:           math.floor
// CHECK:           math.floor
// CHECK:           %{{.*}}, %{{.*}} = scf.for %{{.*}} = %[[FROM:.*]] to %[[TO:.*]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f64, f64) {
// CHECK:             %{{.*}}, %{{.*}} = scf.for %{{.*}} = %[[FROM]] to %[[TO]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f64, f64) {
// CHECK:               math.absf
// CHECK:               arith.maximumf
// CHECK:               %[[E:.*]] = memref.load %{{.*}} : memref<1x1x2x2xf16>
// CHECK-NEXT:          %[[WIDE:.*]] = arith.extf %[[E]] : f16 to f64
// CHECK-NEXT:          %[[TERM:.*]] = arith.mulf %{{.*}}, %[[WIDE]] : f64
// CHECK-NEXT:          arith.addf %{{.*}}, %[[TERM]] : f64
// CHECK:           %[[R:.*]] = arith.truncf %{{.*}} : f64 to f16
// CHECK-NEXT:      linalg.yield %[[R]] : f16

// -----

func.func @resize_sizes_run_time(%x: tensor<1x1x?x?xf32, ["H", "W"]>, %sizes: tensor<2xi64>) -> tensor<1x1x?x?xf32, ["P", "Q"]> attributes {onnxc.dims = ["H", "W"], onnxc.input_names = ["x", "sizes"], onnxc.output_names = ["y"]} {
  %n = "onnx.NoValue"() : () -> none
  %r = "onnx.Resize"(%x, %n, %n, %sizes) <{mode = "cubic", axes = array<i64: 2, 3>, coordinate_transformation_mode = "align_corners"}> {onnx_node_name = "up"} : (tensor<1x1x?x?xf32, ["H", "W"]>, none, none, tensor<2xi64>) -> tensor<1x1x?x?xf32, ["P", "Q"]>
  func.return %r : tensor<1x1x?x?xf32, ["P", "Q"]>
}

// Scales out / in from sizes loaded at run time; four taps per axis.
// CHECK-LABEL: func.func @resize_sizes_run_time
// CHECK-SAME:    (%[[H:.*]]: index, %[[W:.*]]: index, %{{.*}}: memref<1x1x?x?xf32>, %[[SIZES:.*]]: memref<2xi64>
// CHECK:         memref.load %[[SIZES]]
// CHECK:         onnxc.check %{{.*}}, "Resize up: sizes >= 0"
// CHECK:         arith.divf
// CHECK:         linalg.generic
// CHECK:           scf.for %{{.*}} = %[[FROM:.*]] to %[[TO:.*]] step
// CHECK:             scf.for %{{.*}} = %[[FROM]] to %[[TO]] step
