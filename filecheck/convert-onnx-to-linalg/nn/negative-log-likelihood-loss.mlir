// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// mean with weights and ignore_index: one reduction over the targets into a
// sum of losses and a sum of weights (an ignored target adds 0 to both), then
// their quotient.
// CHECK-LABEL: func.func @nll_mean(
// CHECK-SAME:      %[[X:.*]]: memref<3x5x2xf32>, %[[T:.*]]: memref<3x2xi64>, %[[W:.*]]: memref<5xf32>, %[[OUT:.*]]: memref<f32>)
// CHECK:         %[[C:.*]] = arith.constant 5 : index
// CHECK:         %[[TOTAL:.*]] = memref.alloc() : memref<f32>
// CHECK:         %[[COUNT:.*]] = memref.alloc() : memref<f32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%[[T]] : memref<3x2xi64>) outs(%[[TOTAL]], %[[COUNT]] : memref<f32>, memref<f32>)
// CHECK-NEXT:    ^{{.*}}(%[[LABEL:.*]]: i64, %[[SUM:.*]]: f32, %[[WSUM:.*]]: f32):
// CHECK-NEXT:      %[[N:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[D:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[CLASS:.*]] = arith.index_cast %[[LABEL]] : i64 to index
// CHECK-NEXT:      %[[INSIDE:.*]] = arith.cmpi ult, %[[CLASS]], %[[C]] : index
// CHECK-NEXT:      %[[II:.*]] = arith.constant -1 : i64
// CHECK-NEXT:      %[[IGNORED:.*]] = arith.cmpi eq, %[[LABEL]], %[[II]] : i64
// CHECK-NEXT:      %[[OK:.*]] = arith.ori %[[INSIDE]], %[[IGNORED]] : i1
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[SAFE:.*]] = arith.select %[[IGNORED]], %[[ZERO]], %[[CLASS]] : index
// CHECK-NEXT:      onnxc.check %[[OK]], "NegativeLogLikelihoodLoss nll: target is a class index or ignore_index"
// CHECK-NEXT:      %[[LP:.*]] = memref.load %[[X]][%[[N]], %[[SAFE]], %[[D]]] : memref<3x5x2xf32>
// CHECK-NEXT:      %[[NEG:.*]] = arith.negf %[[LP]] : f32
// CHECK-NEXT:      %[[WEIGHT:.*]] = memref.load %[[W]][%[[SAFE]]] : memref<5xf32>
// CHECK-NEXT:      %[[LOSS:.*]] = arith.mulf %[[NEG]], %[[WEIGHT]] : f32
// CHECK-NEXT:      %[[FZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[KEPT:.*]] = arith.select %[[IGNORED]], %[[FZERO]], %[[LOSS]] : f32
// CHECK-NEXT:      %[[COUNTED:.*]] = arith.select %[[IGNORED]], %[[FZERO]], %[[WEIGHT]] : f32
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addf %[[SUM]], %[[KEPT]] : f32
// CHECK-NEXT:      %[[WNEXT:.*]] = arith.addf %[[WSUM]], %[[COUNTED]] : f32
// CHECK-NEXT:      linalg.yield %[[NEXT]], %[[WNEXT]] : f32, f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%[[TOTAL]], %[[COUNT]] : memref<f32>, memref<f32>) outs(%[[OUT]] : memref<f32>)
// CHECK:           arith.divf

func.func @nll_mean(%x: tensor<3x5x2xf32>, %t: tensor<3x2xi64>, %w: tensor<5xf32>) -> tensor<f32> {
  %r = "onnx.NegativeLogLikelihoodLoss"(%x, %t, %w) <{reduction = "mean", ignore_index = -1 : i64}> {onnx_node_name = "nll"} : (tensor<3x5x2xf32>, tensor<3x2xi64>, tensor<5xf32>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

// none without weights: one parallel generic over the targets.
// CHECK-LABEL: func.func @nll_none(
// CHECK-SAME:      %[[X:.*]]: memref<2x4xf64>, %[[T:.*]]: memref<2xi32>, %[[OUT:.*]]: memref<2xf64>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[T]] : memref<2xi32>) outs(%[[OUT]] : memref<2xf64>)
// CHECK:           %[[LP:.*]] = memref.load %[[X]]
// CHECK-NEXT:      %[[NEG:.*]] = arith.negf %[[LP]] : f64
// CHECK:           linalg.yield %[[NEG]] : f64

func.func @nll_none(%x: tensor<2x4xf64>, %t: tensor<2xi32>) -> tensor<2xf64> {
  %none = "onnx.NoValue"() : () -> none
  %r = "onnx.NegativeLogLikelihoodLoss"(%x, %t, %none) <{reduction = "none"}> {onnx_node_name = "nll"} : (tensor<2x4xf64>, tensor<2xi32>, none) -> tensor<2xf64>
  func.return %r : tensor<2xf64>
}
