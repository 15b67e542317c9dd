// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// avg, half_pixel, adaptive sampling: one parallel generic over Y whose body
// checks the region's batch index, scales and shifts its corners by
// -0.5, cuts it into bins of ceil(bin size) samples per axis, and sums the
// bilinear samples (0 more than one element outside X), divided by their
// count, in double.
// CHECK-LABEL: func.func @roi_align_avg(
// CHECK-SAME:      %[[X:.*]]: memref<2x3x6x7xf32>, %[[ROIS:.*]]: memref<4x4xf32>, %[[B:.*]]: memref<4xi64>, %[[OUT:.*]]: memref<4x3x2x2xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%[[OUT]] : memref<4x3x2x2xf32>)
// CHECK:           %[[R:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[C:.*]] = linalg.index 1 : index
// CHECK:           %[[BI:.*]] = memref.load %[[B]][%[[R]]] : memref<4xi64>
// CHECK-NEXT:      %[[N:.*]] = arith.index_cast %[[BI]] : i64 to index
// CHECK-NEXT:      %[[OK:.*]] = arith.cmpi ult, %[[N]], %{{.*}} : index
// CHECK-NEXT:      onnxc.check %[[OK]], "RoiAlign roi: a batch index is in range"
// CHECK:           %[[Y1:.*]] = arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:      %[[HALF:.*]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:      %[[START:.*]] = arith.subf %[[Y1]], %[[HALF]] : f64
// CHECK:           %[[BIN:.*]] = arith.divf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:      %[[CEIL:.*]] = math.ceil %[[BIN]] : f64
// CHECK:           %[[SUM:.*]] = scf.for {{.*}} -> (f64) {
// CHECK:             scf.for {{.*}} -> (f64) {
// CHECK-COUNT-4:       memref.load %[[X]][%[[N]], %[[C]], %{{.*}}, %{{.*}}] : memref<2x3x6x7xf32>
// CHECK:               %[[FAR:.*]] = arith.ori %{{.*}}, %{{.*}} : i1
// CHECK:               %[[SAMPLE:.*]] = arith.select %[[FAR]], %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:          %[[NEXT:.*]] = arith.addf %{{.*}}, %[[SAMPLE]] : f64
// CHECK-NEXT:          scf.yield %[[NEXT]] : f64
// CHECK:           %[[COUNT:.*]] = arith.maximumf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:      %[[MEAN:.*]] = arith.divf %[[SUM]], %[[COUNT]] : f64
// CHECK-NEXT:      %[[Y:.*]] = arith.truncf %[[MEAN]] : f64 to f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32

func.func @roi_align_avg(%x: tensor<2x3x6x7xf32>, %rois: tensor<4x4xf32>, %b: tensor<4xi64>) -> tensor<4x3x2x2xf32> {
  %y = "onnx.RoiAlign"(%x, %rois, %b) <{output_height = 2 : i64, output_width = 2 : i64, spatial_scale = 5.000000e-01 : f32}> {onnx_node_name = "roi"} : (tensor<2x3x6x7xf32>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x2x2xf32>
  func.return %y : tensor<4x3x2x2xf32>
}

// -----

// max, output_half_pixel, 2 x 2 samples, a run-time height: X is checked to
// have elements; regions are at least 1 x 1; the loops run a constant 2
// times; each sample is the largest of its weighted neighbours, the bin the
// largest sample (0 without samples).
// CHECK-LABEL: func.func @roi_align_max(%H: index,
// CHECK:         onnxc.check %{{.*}}, "RoiAlign roi: X has elements to sample"
// CHECK:         linalg.generic
// CHECK-COUNT-3:   memref.load %rois
// CHECK:           %[[Y2:.*]] = memref.load %rois[%{{.*}}, %{{.*}}] : memref<3x4xf64>
// CHECK-NEXT:      %[[LENGTH:.*]] = arith.subf %[[Y2]], %{{.*}} : f64
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:      arith.maximumf %[[LENGTH]], %[[ONE]] : f64
// CHECK:           %[[TWO:.*]] = arith.constant 2 : index
// CHECK:           %[[LOWEST:.*]] = arith.constant 0xfff0000000000000 : f64
// CHECK:           %[[BIN:.*]] = scf.for %{{.*}} = %{{.*}} to %[[TWO]] step %{{.*}} iter_args(%{{.*}} = %[[LOWEST]]) -> (f64) {
// CHECK:             scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f64) {
// CHECK-COUNT-4:       memref.load
// CHECK:               arith.maximumf
// CHECK-NEXT:          arith.maximumf
// CHECK-NEXT:          %[[BEST:.*]] = arith.maximumf
// CHECK:               %[[SAMPLE:.*]] = arith.select %{{.*}}, %{{.*}}, %[[BEST]] : f64
// CHECK-NEXT:          %[[NEXT:.*]] = arith.maximumf %[[ACC]], %[[SAMPLE]] : f64
// CHECK:           %[[ANY:.*]] = arith.cmpf ogt, %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      %[[Y:.*]] = arith.select %[[ANY]], %[[BIN]], %[[ZERO]] : f64
// CHECK-NEXT:      linalg.yield %[[Y]] : f64

func.func @roi_align_max(%x: tensor<1x2x?x5xf64, ["H"]>, %rois: tensor<3x4xf64>, %b: tensor<3xi64>) -> tensor<3x2x1x2xf64> attributes {onnxc.dims = ["H"], onnxc.input_names = ["x", "rois", "b"], onnxc.output_names = ["y"]} {
  %y = "onnx.RoiAlign"(%x, %rois, %b) <{mode = "max", coordinate_transformation_mode = "output_half_pixel", sampling_ratio = 2 : i64, output_width = 2 : i64}> {onnx_node_name = "roi"} : (tensor<1x2x?x5xf64, ["H"]>, tensor<3x4xf64>, tensor<3xi64>) -> tensor<3x2x1x2xf64>
  func.return %y : tensor<3x2x1x2xf64>
}
