// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

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
