// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// A [1, 6, 4] by B packed [2, 4, 16] into [1, 6, 20] (N = 20), register
// blocks of 4 rows, a bias added after the sums and Relu: column block 0
// takes 16 lanes, the last block 4; rows 0..3 are one block of four
// accumulators, rows 4 and 5 one block of two.
func.func @matmul(%a: tensor<1x6x4xf32>) -> tensor<1x6x20xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<2x4x16xf32>}> {onnx_node_name = "w"} : () -> tensor<2x4x16xf32>
  %b = "onnx.Constant"() <{value = dense<0.25> : tensor<20xf32>}> {onnx_node_name = "b"} : () -> tensor<20xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "kernel.matmul"(%a, %w, %b, %none) <{packed = 1 : i64, lanes = 16 : i64, rows = 4 : i64, bias_first = 0 : i64, activation = "Relu"}> {onnx_node_name = "matmul"} : (tensor<1x6x4xf32>, tensor<2x4x16xf32>, tensor<20xf32>, none) -> tensor<1x6x20xf32>
  func.return %y : tensor<1x6x20xf32>
}

// CHECK-LABEL: func.func @matmul
// The whole column block: the loop over row blocks of four.
// CHECK:         scf.for %[[M0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[A0:.*]] = memref.alloca() : memref<16xf32>
// CHECK-NEXT:      %[[A1:.*]] = memref.alloca() : memref<16xf32>
// CHECK-NEXT:      %[[A2:.*]] = memref.alloca() : memref<16xf32>
// CHECK-NEXT:      %[[A3:.*]] = memref.alloca() : memref<16xf32>
// The accumulators start from zero (the bias comes after the sums).
// CHECK:           scf.for
// CHECK-NEXT:        arith.constant 0.000000e+00 : f32
// Over k: one element of A per row, then the lane loop updates all four
// accumulators with one element of the packed B.
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             memref.load %a
// CHECK:             memref.load %a
// CHECK:             memref.load %a
// CHECK:             memref.load %a
// CHECK:             scf.for %[[V:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          %[[WV:.*]] = memref.load %{{.*}}[%{{.*}}, %[[K]], %[[V]]] : memref<2x4x16xf32>
// CHECK-NEXT:          %{{.*}} = memref.load %[[A0]][%[[V]]] : memref<16xf32>
// CHECK-NEXT:          %{{.*}} = arith.mulf %{{.*}}, %[[WV]] : f32
// CHECK-NEXT:          %{{.*}} = arith.addf
// CHECK-NEXT:          memref.store %{{.*}}, %[[A0]][%[[V]]] : memref<16xf32>
// The epilogue: the bias after the sum, then Relu, stored row-major.
// CHECK:           %[[BV:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<20xf32>
// CHECK-NEXT:      memref.load %[[A0]]
// CHECK-NEXT:      arith.addf %{{.*}}, %[[BV]] : f32
// CHECK:           arith.maximumf
// CHECK:           memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<1x6x20xf32>
// The two remaining rows of the block.
// CHECK:         %acc0{{.*}} = memref.alloca(){{.*}} : memref<16xf32>
// CHECK-NEXT:    %acc1{{.*}} = memref.alloca(){{.*}} : memref<16xf32>
// CHECK-NOT:     memref.alloca(){{.*}} : memref<16xf32>
// The last column block: four lanes.
// CHECK:         memref.alloca(){{.*}} : memref<4xf32>

// -----

// Attention's scores: B computed at run time, read row-major ([G, K, N],
// here G = 2 products of [3, 4] by [4, 5]); with `fma`, each step of a sum
// is one math.fma; a Gemm's bias (bias_first) starts the sums.
func.func @scores(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %c = "onnx.Constant"() <{value = dense<0.25> : tensor<5xf32>}> {onnx_node_name = "c"} : () -> tensor<5xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "kernel.matmul"(%a, %b, %c, %none) <{packed = 0 : i64, lanes = 16 : i64, rows = 4 : i64, bias_first = 1 : i64, fma = 1 : i64}> {onnx_node_name = "scores"} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<5xf32>, none) -> tensor<2x3x5xf32>
  func.return %y : tensor<2x3x5xf32>
}

// CHECK-LABEL: func.func @scores
// One loop over the products, one block of three rows, five lanes.
// CHECK:         scf.for %[[G:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           memref.alloca(){{.*}} : memref<5xf32>
// CHECK:           scf.for %[[V0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             %[[C:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<5xf32>
// CHECK-NEXT:        memref.store %[[C]], %{{.*}}[%[[V0]]] : memref<5xf32>
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             scf.for %[[V:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:               %[[BV:.*]] = memref.load %b[%[[G]], %[[K]], %{{.*}}] : memref<2x4x5xf32>
// CHECK-NEXT:          %[[ACC:.*]] = memref.load %{{.*}}[%[[V]]] : memref<5xf32>
// CHECK-NEXT:          %[[T:.*]] = math.fma %{{.*}}, %[[BV]], %[[ACC]] : f32
// CHECK-NEXT:          memref.store %[[T]], %{{.*}}[%[[V]]] : memref<5xf32>

// -----

// Transposes folded into the indexing: A is transpose(%q, [0, 2, 1, 3]) and
// the result is written as its transpose by the same permutation, so the
// product of head h, row m reads %q[0, m, h, k] and writes %y[0, m, h, n].
func.func @heads(%q: tensor<1x3x2x4xf32>, %b: tensor<1x2x4x5xf32>) -> tensor<1x3x2x5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "kernel.matmul"(%q, %b, %none, %none) <{packed = 0 : i64, lanes = 16 : i64, rows = 4 : i64, bias_first = 0 : i64, fma = 0 : i64, a_perm = array<i64: 0, 2, 1, 3>, y_perm = array<i64: 0, 2, 1, 3>}> {onnx_node_name = "heads"} : (tensor<1x3x2x4xf32>, tensor<1x2x4x5xf32>, none, none) -> tensor<1x3x2x5xf32>
  func.return %y : tensor<1x3x2x5xf32>
}

// CHECK-LABEL: func.func @heads
// CHECK:         scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           scf.for
// CHECK-NEXT:        arith.constant 0.000000e+00 : f32
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             memref.load %q[%{{.*}}, %{{.*}}, %[[H]], %[[K]]] : memref<1x3x2x4xf32>
// CHECK:               memref.load %b[%{{.*}}, %[[H]], %[[K]], %{{.*}}] : memref<1x2x4x5xf32>
// CHECK:           memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %[[H]], %{{.*}}] : memref<1x3x2x5xf32>

// -----

// A result written as its transpose by a permutation that is not its own
// inverse (the attention merge of a sequence-first export): Y is [1, 4, 3, 5]
// (batch, head, row, column) and its buffer transpose(Y, [2, 0, 1, 3]), so
// row m of head h is stored at %y[m, 0, h, n].
func.func @rotated(%a: tensor<1x4x3x6xf32>, %b: tensor<1x4x6x5xf32>) -> tensor<3x1x4x5xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y = "kernel.matmul"(%a, %b, %none, %none) <{packed = 0 : i64, lanes = 16 : i64, rows = 4 : i64, bias_first = 0 : i64, fma = 0 : i64, y_perm = array<i64: 2, 0, 1, 3>}> {onnx_node_name = "merge"} : (tensor<1x4x3x6xf32>, tensor<1x4x6x5xf32>, none, none) -> tensor<3x1x4x5xf32>
  func.return %y : tensor<3x1x4x5xf32>
}

// CHECK-LABEL: func.func @rotated
// CHECK:         scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           memref.load %a[%[[G0:.*]], %[[H]], %[[M:.*]], %{{.*}}] : memref<1x4x3x6xf32>
// CHECK:           memref.store %{{.*}}, %{{.*}}[%[[M]], %[[G0]], %[[H]], %{{.*}}] : memref<3x1x4x5xf32>
