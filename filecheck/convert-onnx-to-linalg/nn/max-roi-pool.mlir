// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// One parallel generic over Y whose body checks the region's batch index
// (-1 < b < N, before truncating it), rounds its corners times
// spatial_scale half away from zero, computes the bin's first and past-last
// row and column (floor and ceil, clamped into X), and takes the maximum of
// X over them; an empty bin is 0.
// CHECK-LABEL: func.func @max_roi_pool(
// CHECK-SAME:      %[[X:.*]]: memref<2x3x6x7xf32>, %[[ROIS:.*]]: memref<4x5xf32>, %[[OUT:.*]]: memref<4x3x2x3xf32>)
// CHECK:         %[[N:.*]] = arith.constant {{.*}} 2.000000e+00 : f32
// CHECK:         %[[H:.*]] = arith.constant {{.*}} 6.000000e+00 : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%[[OUT]] : memref<4x3x2x3xf32>)
// CHECK:           %[[R:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[C:.*]] = linalg.index 1 : index
// CHECK:           %[[B:.*]] = memref.load %[[ROIS]][%[[R]], %{{.*}}] : memref<4x5xf32>
// CHECK-NEXT:      %[[MINUS_ONE:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:      %[[ABOVE:.*]] = arith.cmpf ogt, %[[B]], %[[MINUS_ONE]] : f32
// CHECK-NEXT:      %[[BELOW:.*]] = arith.cmpf olt, %[[B]], %[[N]] : f32
// CHECK-NEXT:      %[[OK:.*]] = arith.andi %[[ABOVE]], %[[BELOW]] : i1
// CHECK-NEXT:      onnxc.check %[[OK]], "MaxRoiPool pool: a batch index is in range"
// CHECK-NEXT:      %[[BI:.*]] = arith.fptosi %[[B]] : f32 to i64
// CHECK-NEXT:      %[[BATCH:.*]] = arith.index_cast %[[BI]] : i64 to index
// CHECK:           %[[Y1:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[START:.*]] = math.round %[[Y1]] : f32
// CHECK:           %[[LOW:.*]] = math.floor %{{.*}} : f32
// CHECK:           %[[HIGH:.*]] = math.ceil %{{.*}} : f32
// CHECK-NEXT:      %[[FIRST:.*]] = arith.addf %[[LOW]], %[[START]] : f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[ABOVE_0:.*]] = arith.maximumf %[[FIRST]], %[[ZERO]] : f32
// CHECK-NEXT:      %{{.*}} = arith.minimumf %[[ABOVE_0]], %[[H]] : f32
// CHECK:           %[[LOWEST:.*]] = arith.constant 0xff800000 : f32
// CHECK:           %[[MAX:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[LOWEST]]) -> (f32) {
// CHECK:             scf.for %[[W:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:          %[[V:.*]] = memref.load %[[X]][%[[BATCH]], %[[C]], %{{.*}}, %[[W]]] : memref<2x3x6x7xf32>
// CHECK-NEXT:          %[[NEXT:.*]] = arith.maximumf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:          scf.yield %[[NEXT]] : f32
// CHECK:           %[[EMPTY_H:.*]] = arith.cmpi ule, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      %[[EMPTY_W:.*]] = arith.cmpi ule, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      %[[EMPTY:.*]] = arith.ori %[[EMPTY_H]], %[[EMPTY_W]] : i1
// CHECK-NEXT:      %[[ZERO_Y:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.select %[[EMPTY]], %[[ZERO_Y]], %[[MAX]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32

func.func @max_roi_pool(%x: tensor<2x3x6x7xf32>, %rois: tensor<4x5xf32>) -> tensor<4x3x2x3xf32> {
  %y = "onnx.MaxRoiPool"(%x, %rois) <{pooled_shape = array<i64: 2, 3>, spatial_scale = 0.5 : f32}> {onnx_node_name = "pool"} : (tensor<2x3x6x7xf32>, tensor<4x5xf32>) -> tensor<4x3x2x3xf32>
  func.return %y : tensor<4x3x2x3xf32>
}

// -----

// float16: the coordinates and bins are computed in float, the maximum in
// float16.
// CHECK-LABEL: func.func @max_roi_pool_f16(
// CHECK:           %[[B:.*]] = memref.load %{{.*}} : memref<1x5xf16>
// CHECK-NEXT:      %[[BF:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK:           math.round %{{.*}} : f32
// CHECK:           %[[LOWEST:.*]] = arith.constant 0xfc00 : f16
// CHECK:           arith.maximumf %{{.*}}, %{{.*}} : f16
// CHECK:           arith.select %{{.*}}, %{{.*}}, %{{.*}} : f16

func.func @max_roi_pool_f16(%x: tensor<1x2x4x4xf16>, %rois: tensor<1x5xf16>) -> tensor<1x2x1x1xf16> {
  %y = "onnx.MaxRoiPool"(%x, %rois) <{pooled_shape = array<i64: 1, 1>}> {onnx_node_name = "pool"} : (tensor<1x2x4x4xf16>, tensor<1x5xf16>) -> tensor<1x2x1x1xf16>
  func.return %y : tensor<1x2x1x1xf16>
}
