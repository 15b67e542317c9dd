// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @matmul(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %r = "onnx.MatMul"(%a, %b) {onnx_node_name = "matmul"} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  func.return %r : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @matmul(
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

func.func @matmul_batch_broadcast(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32> {
  %r = "onnx.MatMul"(%a, %b) {onnx_node_name = "matmul"} : (tensor<2x1x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x5x3x6xf32>
  func.return %r : tensor<2x5x3x6xf32>
}

// CHECK-LABEL: func.func @matmul_batch_broadcast(
// CHECK-SAME:      %[[A:[^:]*]]: memref<2x1x3x4xf32>, %[[B:[^:]*]]: memref<5x4x6xf32>, %[[OUT:[^:]*]]: memref<2x5x3x6xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : f32) outs(%[[OUT]] : memref<2x5x3x6xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<2x1x3x4xf32>, memref<5x4x6xf32>) outs(%[[OUT]] : memref<2x5x3x6xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @matmul_vector_matrix(%a: tensor<4xf32>, %b: tensor<2x4x6xf32>) -> tensor<2x6xf32> {
  %r = "onnx.MatMul"(%a, %b) {onnx_node_name = "matmul"} : (tensor<4xf32>, tensor<2x4x6xf32>) -> tensor<2x6xf32>
  func.return %r : tensor<2x6xf32>
}

// CHECK-LABEL: func.func @matmul_vector_matrix(
// CHECK-SAME:      %[[A:[^:]*]]: memref<4xf32>, %[[B:[^:]*]]: memref<2x4x6xf32>, %[[OUT:[^:]*]]: memref<2x6xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : f32) outs(%[[OUT]] : memref<2x6xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<4xf32>, memref<2x4x6xf32>) outs(%[[OUT]] : memref<2x6xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @matmul_matrix_vector(%a: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<3xf32> {
  %r = "onnx.MatMul"(%a, %b) {onnx_node_name = "matmul"} : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @matmul_matrix_vector(
// CHECK-SAME:      %[[A:[^:]*]]: memref<3x4xf32>, %[[B:[^:]*]]: memref<4xf32>, %[[OUT:[^:]*]]: memref<3xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : f32) outs(%[[OUT]] : memref<3xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<3x4xf32>, memref<4xf32>) outs(%[[OUT]] : memref<3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @matmul_dot(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %r = "onnx.MatMul"(%a, %b) {onnx_node_name = "matmul"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// CHECK-LABEL: func.func @matmul_dot(
// CHECK-SAME:      %[[A:[^:]*]]: memref<4xf32>, %[[B:[^:]*]]: memref<4xf32>, %[[OUT:[^:]*]]: memref<f32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    linalg.fill {{.*}} ins(%[[ZERO]] : f32) outs(%[[OUT]] : memref<f32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<4xf32>, memref<4xf32>) outs(%[[OUT]] : memref<f32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
