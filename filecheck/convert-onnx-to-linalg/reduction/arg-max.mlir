// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// One reduction generic with two outputs, the best value and its position:
// position 0 is taken, then a later element replaces it when strictly
// greater (so ties keep the first, and a NaN never replaces the best).

func.func @argmax(%x: tensor<2x3xf32>) -> tensor<2x1xi64> {
  %r = "onnx.ArgMax"(%x) <{axis = 1 : i64}> {onnx_node_name = "argmax"} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  func.return %r : tensor<2x1xi64>
}

// CHECK-LABEL: func.func @argmax(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x1xi64>)
// CHECK:         %[[BEST:.*]] = memref.alloc() : memref<2x1xf32>
// CHECK:         linalg.fill {{.*}} outs(%[[BEST]] : memref<2x1xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : i64) outs(%[[OUT]] : memref<2x1xi64>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : memref<2x3xf32>) outs(%[[BEST]], %[[OUT]] : memref<2x1xf32>, memref<2x1xi64>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %[[B:[^:]*]]: f32, %[[I:[^:]*]]: i64):
// CHECK-NEXT:      %[[HERE:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[POS:.*]] = arith.index_cast %[[HERE]] : index to i64
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : i64
// CHECK-NEXT:      %[[FIRST:.*]] = arith.cmpi eq, %[[POS]], %[[C0]] : i64
// CHECK-NEXT:      %[[GT:.*]] = arith.cmpf ogt, %[[V]], %[[B]] : f32
// CHECK-NEXT:      %[[TAKE:.*]] = arith.ori %[[FIRST]], %[[GT]] : i1
// CHECK-NEXT:      %[[NB:.*]] = arith.select %[[TAKE]], %[[V]], %[[B]] : f32
// CHECK-NEXT:      %[[NI:.*]] = arith.select %[[TAKE]], %[[POS]], %[[I]] : i64
// CHECK-NEXT:      linalg.yield %[[NB]], %[[NI]] : f32, i64

// -----

func.func @argmax_last_index_u8(%x: tensor<2x3xui8>) -> tensor<3xi64> {
  %r = "onnx.ArgMax"(%x) <{axis = 0 : i64, keepdims = 0 : i64, select_last_index = 1 : i64}> {onnx_node_name = "argmax"} : (tensor<2x3xui8>) -> tensor<3xi64>
  func.return %r : tensor<3xi64>
}

// CHECK-LABEL: func.func @argmax_last_index_u8(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
// CHECK:           linalg.index 0 : index
// CHECK:           arith.cmpi uge, %{{.*}}, %{{.*}} : ui8
