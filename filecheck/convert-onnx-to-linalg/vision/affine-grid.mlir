// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// grid[n, h, w, k] = theta[n, k, 0] * x_w + theta[n, k, 1] * y_h + theta[n, k, 2],
// with x_w = (2 w + 1) / 6 - 1 and y_h = (2 h + 1) / 5 - 1.
// CHECK-LABEL: func.func @affine_grid(
// CHECK-SAME:      %[[T:.*]]: memref<2x2x3xf32>, %[[OUT:.*]]: memref<2x5x6x2xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%[[OUT]] : memref<2x5x6x2xf32>)
// CHECK:           %[[N:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[H:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[W:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[K:.*]] = linalg.index 3 : index
// CHECK:           %[[T0:.*]] = memref.load %[[T]][%[[N]], %[[K]], %{{.*}}] : memref<2x2x3xf32>
// CHECK:           %[[WI:.*]] = arith.index_cast %[[W]] : index to i64
// CHECK:           %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK:           arith.divf %{{.*}}, %[[SIX]] : f32
// CHECK:           %[[T1:.*]] = memref.load %[[T]][%[[N]], %[[K]], %{{.*}}] : memref<2x2x3xf32>
// CHECK:           %[[HI:.*]] = arith.index_cast %[[H]] : index to i64
// CHECK:           %[[FIVE:.*]] = arith.constant 5.000000e+00 : f32
// CHECK:           arith.divf %{{.*}}, %[[FIVE]] : f32
// CHECK:           %[[T2:.*]] = memref.load %[[T]][%[[N]], %[[K]], %{{.*}}] : memref<2x2x3xf32>
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %{{.*}}, %[[T2]] : f32
// CHECK-NEXT:      linalg.yield %[[SUM]] : f32

func.func @affine_grid(%t: tensor<2x2x3xf32>) -> tensor<2x5x6x2xf32> {
  %s = "onnx.Constant"() <{value = dense<[2, 1, 5, 6]> : tensor<4xi64>}> : () -> tensor<4xi64>
  %g = "onnx.AffineGrid"(%t, %s) {onnx_node_name = "ag"} : (tensor<2x2x3xf32>, tensor<4xi64>) -> tensor<2x5x6x2xf32>
  func.return %g : tensor<2x5x6x2xf32>
}
