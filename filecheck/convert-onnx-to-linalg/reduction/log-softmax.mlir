// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// The maximum along the axis, the sum of exp(x - max) (one reduction reading
// x and the maximum), and (x - max) - log(sum).

func.func @log_softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.LogSoftmax"(%x) <{axis = 0 : i64}> {onnx_node_name = "log_softmax"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @log_softmax(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         %[[MAX:.*]] = memref.alloc() : memref<3xf32>
// CHECK-NEXT:    %[[NEG_INF:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[NEG_INF]] : f32) outs(%[[MAX]] : memref<3xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%[[X]] : memref<2x3xf32>) outs(%[[MAX]] : memref<3xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[SUM:.*]] = memref.alloc() : memref<3xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%[[X]], %[[MAX]] : memref<2x3xf32>, memref<3xf32>) outs(%[[SUM]] : memref<3xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[M:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[V]], %[[M]] : f32
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[E]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]], %[[SUM]] : memref<2x3xf32>, memref<3xf32>, memref<3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[M:[^:]*]]: f32, %[[T:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[V]], %[[M]] : f32
// CHECK-NEXT:      %[[L:.*]] = math.log %[[T]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.subf %[[D]], %[[L]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

// Along a long axis (16 or more) the exponentials are summed in double and
// the sum rounded to float before its log.

func.func @log_softmax_long(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %r = "onnx.LogSoftmax"(%x) {onnx_node_name = "log_softmax"} : (tensor<2x16xf32>) -> tensor<2x16xf32>
  func.return %r : tensor<2x16xf32>
}

// CHECK-LABEL: func.func @log_softmax_long(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x16xf32>, %[[OUT:[^:]*]]: memref<2x16xf32>)
// CHECK:         %[[SUM:.*]] = memref.alloc() : memref<2xf64>
// CHECK:         linalg.generic {{.*}} outs(%[[SUM]] : memref<2xf64>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[M:[^:]*]]: f32, %[[ACC:[^:]*]]: f64):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[V]], %[[M]] : f32
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[E]] : f32 to f64
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[W]] : f64
// CHECK-NEXT:      linalg.yield %[[S]] : f64
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %{{.*}}, %[[SUM]] : memref<2x16xf32>, memref<2xf32>, memref<2xf64>) outs(%[[OUT]] : memref<2x16xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[M:[^:]*]]: f32, %[[T:[^:]*]]: f64, %{{.*}}: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[V]], %[[M]] : f32
// CHECK-NEXT:      %[[F:.*]] = arith.truncf %[[T]] : f64 to f32
// CHECK-NEXT:      %[[L:.*]] = math.log %[[F]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.subf %[[D]], %[[L]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
