// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// The first maximum along the axis and its position (as ArgMax), then a
// one-hot generic: 1 where the position matches and the maximum is no NaN.

func.func @hardmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Hardmax"(%x) {onnx_node_name = "hardmax"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @hardmax(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         %[[BEST:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:    %[[INDEX:.*]] = memref.alloc() : memref<2xi64>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : memref<2x3xf32>) outs(%[[BEST]], %[[INDEX]] : memref<2xf32>, memref<2xi64>)
// CHECK:           arith.cmpf ogt
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[BEST]], %[[INDEX]] : memref<2xf32>, memref<2xi64>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[B:[^:]*]]: f32, %[[I:[^:]*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:      %[[HERE:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[POS:.*]] = arith.index_cast %[[HERE]] : index to i64
// CHECK-NEXT:      %[[AT:.*]] = arith.cmpi eq, %[[POS]], %[[I]] : i64
// CHECK-NEXT:      %[[NUMBER:.*]] = arith.cmpf oeq, %[[B]], %[[B]] : f32
// CHECK-NEXT:      %[[HIT:.*]] = arith.andi %[[AT]], %[[NUMBER]] : i1
// CHECK-NEXT:      %[[ONE_HOT:.*]] = arith.uitofp %[[HIT]] : i1 to f32
// CHECK-NEXT:      linalg.yield %[[ONE_HOT]] : f32
