// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @gemm(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %r = "onnx.Gemm"(%a, %b, %none) {onnx_node_name = "gemm"} : (tensor<3x4xf32>, tensor<4x5xf32>, none) -> tensor<3x5xf32>
  func.return %r : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @gemm(
// CHECK-SAME:      %[[A:[^:]*]]: memref<3x4xf32>, %[[B:[^:]*]]: memref<4x5xf32>, %[[OUT:[^:]*]]: memref<3x5xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : f32) outs(%[[OUT]] : memref<3x5xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<3x4xf32>, memref<4x5xf32>) outs(%[[OUT]] : memref<3x5xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @gemm_bias(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<5xf32>) -> tensor<3x5xf32> {
  %r = "onnx.Gemm"(%a, %b, %c) {onnx_node_name = "gemm"} : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  func.return %r : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @gemm_bias(
// CHECK-SAME:      %[[A:[^:]*]]: memref<3x4xf32>, %[[B:[^:]*]]: memref<4x5xf32>, %[[C:[^:]*]]: memref<5xf32>, %[[OUT:[^:]*]]: memref<3x5xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[C]] : memref<5xf32>) outs(%[[OUT]] : memref<3x5xf32>)
// CHECK-NEXT:    ^bb0(%[[BIAS:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[BIAS]] : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<3x4xf32>, memref<4x5xf32>) outs(%[[OUT]] : memref<3x5xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @gemm_transposed_scaled(%a: tensor<4x3xf32>, %b: tensor<5x4xf32>, %c: tensor<3x1xf32>) -> tensor<3x5xf32> {
  %r = "onnx.Gemm"(%a, %b, %c) <{alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, transA = 1 : i64, transB = 1 : i64}> {onnx_node_name = "gemm"} : (tensor<4x3xf32>, tensor<5x4xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
  func.return %r : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @gemm_transposed_scaled(
// CHECK-SAME:      %[[A:[^:]*]]: memref<4x3xf32>, %[[B:[^:]*]]: memref<5x4xf32>, %[[C:[^:]*]]: memref<3x1xf32>, %[[OUT:[^:]*]]: memref<3x5xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[C]] : memref<3x1xf32>) outs(%[[OUT]] : memref<3x5xf32>)
// CHECK-NEXT:    ^bb0(%[[BIAS:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[BETA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[BIAS]], %[[BETA]] : f32
// CHECK-NEXT:      linalg.yield %[[SCALED]] : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<4x3xf32>, memref<5x4xf32>) outs(%[[OUT]] : memref<3x5xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[ALPHA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[AP:.*]] = arith.mulf %[[P]], %[[ALPHA]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[ACC]], %[[AP]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @gemm_beta_zero(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %r = "onnx.Gemm"(%a, %b, %c) <{beta = 0.000000e+00 : f32}> {onnx_node_name = "gemm"} : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  func.return %r : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @gemm_beta_zero(
// CHECK-SAME:      %[[A:[^:]*]]: memref<3x4xf32>, %[[B:[^:]*]]: memref<4x5xf32>, %[[C:[^:]*]]: memref<3x5xf32>, %[[OUT:[^:]*]]: memref<3x5xf32>)
// CHECK-NOT:     ins(%[[C]]
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : f32) outs(%[[OUT]] : memref<3x5xf32>)
// CHECK-NEXT:    linalg.generic
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<3x4xf32>, memref<4x5xf32>) outs(%[[OUT]] : memref<3x5xf32>)
