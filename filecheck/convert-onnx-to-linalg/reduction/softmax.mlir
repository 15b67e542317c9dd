// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @softmax(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %r = "onnx.Softmax"(%x) <{axis = 1 : i64}> {onnx_node_name = "softmax"} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return %r : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3x4xf32>, %[[OUT:[^:]*]]: memref<2x3x4xf32>)
// CHECK:         %[[MAX:.*]] = memref.alloc() : memref<2x4xf32>
// CHECK-NEXT:    %[[NEG_INF:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[NEG_INF]] : f32) outs(%[[MAX]] : memref<2x4xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : memref<2x3x4xf32>) outs(%[[MAX]] : memref<2x4xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:      linalg.yield %[[M]] : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[MAX]] : memref<2x3x4xf32>, memref<2x4xf32>) outs(%[[OUT]] : memref<2x3x4xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[VMAX:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[SHIFTED:.*]] = arith.subf %[[V]], %[[VMAX]] : f32
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[SHIFTED]] : f32
// CHECK-NEXT:      linalg.yield %[[E]] : f32
// CHECK:         %[[SUM:.*]] = memref.alloc() : memref<2x4xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : f32) outs(%[[SUM]] : memref<2x4xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[OUT]] : memref<2x3x4xf32>) outs(%[[SUM]] : memref<2x4xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[SUM]] : memref<2x4xf32>) outs(%[[OUT]] : memref<2x3x4xf32>)
// CHECK-NEXT:    ^bb0(%[[VSUM:[^:]*]]: f32, %[[E:[^:]*]]: f32):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[E]], %[[VSUM]] : f32
// CHECK-NEXT:      linalg.yield %[[Q]] : f32

// -----

func.func @softmax_default_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Softmax"(%x) {onnx_node_name = "softmax"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @softmax_default_axis(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         %[[MAX:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:    %[[NEG_INF:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[NEG_INF]] : f32) outs(%[[MAX]] : memref<2xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : memref<2x3xf32>) outs(%[[MAX]] : memref<2xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:      linalg.yield %[[M]] : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]] : memref<2x3xf32>, memref<2xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[VMAX:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[SHIFTED:.*]] = arith.subf %[[V]], %[[VMAX]] : f32
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[SHIFTED]] : f32
// CHECK-NEXT:      linalg.yield %[[E]] : f32
// CHECK:         %[[SUM:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : f32) outs(%[[SUM]] : memref<2xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[OUT]] : memref<2x3xf32>) outs(%[[SUM]] : memref<2xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[SUM]] : memref<2xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[VSUM:[^:]*]]: f32, %[[E:[^:]*]]: f32):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[E]], %[[VSUM]] : f32
// CHECK-NEXT:      linalg.yield %[[Q]] : f32

// -----

// Along the last axis with the rows in whole blocks of 8, the rows are seen
// as [rows / 8, 8] and reduced 8 at a time, the loop over them innermost
// (8 independent chains, each in its own order): the maximum and the sum.
func.func @softmax_rows(%x: tensor<2x8x5xf32>) -> tensor<2x8x5xf32> {
  %r = "onnx.Softmax"(%x) {onnx_node_name = "softmax"} : (tensor<2x8x5xf32>) -> tensor<2x8x5xf32>
  func.return %r : tensor<2x8x5xf32>
}

// CHECK-LABEL: func.func @softmax_rows(
// CHECK:         %[[MAX:.*]] = memref.alloc() : memref<2x8xf32>
// CHECK:         %[[XB:.*]] = memref.expand_shape %x {{.*}} : memref<2x8x5xf32> into memref<2x1x8x5xf32>
// CHECK-NEXT:    %[[MB:.*]] = memref.expand_shape %[[MAX]] {{.*}} : memref<2x8xf32> into memref<2x1x8xf32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[XB]] : memref<2x1x8x5xf32>) outs(%[[MB]] : memref<2x1x8xf32>)
// CHECK:           arith.maximumf
// CHECK:         math.exp
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
// CHECK:           arith.addf
// CHECK:         arith.divf

// -----

// Along a long axis (16 or more) the exponentials are summed in double, in
// 8-row blocks as above; the sum is rounded once to float before dividing.
func.func @softmax_long_rows(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = "onnx.Softmax"(%x) {onnx_node_name = "softmax"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  func.return %r : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @softmax_long_rows(
// CHECK-SAME:      %[[X:[^:]*]]: memref<8x16xf32>, %[[OUT:[^:]*]]: memref<8x16xf32>)
// CHECK:         math.exp
// CHECK:         %[[SUM:.*]] = memref.alloc() : memref<8xf64>
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : f64) outs(%[[SUM]] : memref<8xf64>)
// CHECK:         %[[SB:.*]] = memref.expand_shape %[[SUM]] {{.*}} : memref<8xf64> into memref<1x8xf64>
// CHECK-NEXT:    linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%{{.*}} : memref<1x8x16xf32>) outs(%[[SB]] : memref<1x8xf64>)
// CHECK-NEXT:    ^bb0(%[[E:[^:]*]]: f32, %[[ACC:[^:]*]]: f64):
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[E]] : f32 to f64
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[W]] : f64
// CHECK-NEXT:      linalg.yield %[[S]] : f64
// CHECK:         linalg.generic {{.*}} ins(%[[SUM]] : memref<8xf64>) outs(%[[OUT]] : memref<8x16xf32>)
// CHECK-NEXT:    ^bb0(%[[T:[^:]*]]: f64, %[[E:[^:]*]]: f32):
// CHECK-NEXT:      %[[F:.*]] = arith.truncf %[[T]] : f64 to f32
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[E]], %[[F]] : f32
// CHECK-NEXT:      linalg.yield %[[Q]] : f32
