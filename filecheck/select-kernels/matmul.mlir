// RUN: xdsl-opt -p 'select-kernels{target=host-portable}' --split-input-file %s | filecheck %s

// A projection as PyTorch exports it: MatMul by a constant [K, N], Add of the
// bias, Add of the residual (the input), Relu. One kernel.matmul on A seen as
// [1, M, K] with B packed [ceil(N/16), K, 16] (N = 20: one block and 4 padded
// columns); the bias is added after the sum, then the residual.
func.func @projection(%x: tensor<2x3x20xf32>) -> tensor<2x3x20xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<20x20xf32>}> {onnx_node_name = "w"} : () -> tensor<20x20xf32>
  %b = "onnx.Constant"() <{value = dense<0.25> : tensor<20xf32>}> {onnx_node_name = "b"} : () -> tensor<20xf32>
  %m = "onnx.MatMul"(%x, %w) {onnx_node_name = "matmul"} : (tensor<2x3x20xf32>, tensor<20x20xf32>) -> tensor<2x3x20xf32>
  %a = "onnx.Add"(%m, %b) {onnx_node_name = "bias"} : (tensor<2x3x20xf32>, tensor<20xf32>) -> tensor<2x3x20xf32>
  %r = "onnx.Add"(%x, %a) {onnx_node_name = "residual"} : (tensor<2x3x20xf32>, tensor<2x3x20xf32>) -> tensor<2x3x20xf32>
  %y = "onnx.Relu"(%r) {onnx_node_name = "relu"} : (tensor<2x3x20xf32>) -> tensor<2x3x20xf32>
  func.return %y : tensor<2x3x20xf32>
}

// CHECK-LABEL: func.func @projection
// CHECK:         %[[A:.*]] = "onnx.Reshape"(%x, %{{.*}}) : (tensor<2x3x20xf32>, tensor<3xi64>) -> tensor<1x6x20xf32>
// CHECK:         %[[W:.*]] = "onnx.Constant"() <{value = dense_resource<w_packed> : tensor<2x20x16xf32>}>
// CHECK:         %[[B:.*]] = "onnx.Constant"() <{value = dense_resource<b_row> : tensor<20xf32>}>
// CHECK:         %[[R:.*]] = "onnx.Reshape"(%x, %{{.*}}) : (tensor<2x3x20xf32>, tensor<3xi64>) -> tensor<1x6x20xf32>
// CHECK:         %[[M:.*]] = "kernel.matmul"(%[[A]], %[[W]], %[[B]], %[[R]]) <{packed = 1 : i64, lanes = 16 : i64, rows = 4 : i64, bias_first = 0 : i64, fma = 0 : i64, parallel = 1 : i64, activation = "Relu"}> {onnx_node_name = "matmul+bias+residual+relu"}
// CHECK-SAME:      -> tensor<1x6x20xf32>
// CHECK:         %[[Y:.*]] = "onnx.Reshape"(%[[M]], %{{.*}}) : (tensor<1x6x20xf32>, tensor<3xi64>) -> tensor<2x3x20xf32>
// CHECK-NOT:     onnx.Add
// CHECK-NOT:     onnx.Relu
// CHECK:         func.return %[[Y]]

// -----

// Attention's products: B computed at run time is read row-major, the
// leading dimensions of A and B one batch of products; a Transpose that
// keeps the last axis last, producing A or B or taking the result, is folded
// into the kernel (a_perm, b_perm, y_perm) and leaves the graph. Gemm with
// a constant C starts its sums from C (bias_first).
func.func @attention(%q: tensor<1x5x2x8xf32>, %k: tensor<1x2x8x5xf32>, %v: tensor<1x5x2x8xf32>, %x: tensor<5x8xf32>) -> (tensor<1x5x2x8xf32>, tensor<5x20xf32>) {
  %qt = "onnx.Transpose"(%q) <{perm = array<i64: 0, 2, 1, 3>}> {onnx_node_name = "split_q"} : (tensor<1x5x2x8xf32>) -> tensor<1x2x5x8xf32>
  %s = "onnx.MatMul"(%qt, %k) {onnx_node_name = "scores"} : (tensor<1x2x5x8xf32>, tensor<1x2x8x5xf32>) -> tensor<1x2x5x5xf32>
  %vt = "onnx.Transpose"(%v) <{perm = array<i64: 0, 2, 1, 3>}> {onnx_node_name = "split_v"} : (tensor<1x5x2x8xf32>) -> tensor<1x2x5x8xf32>
  %m = "onnx.MatMul"(%s, %vt) {onnx_node_name = "mix"} : (tensor<1x2x5x5xf32>, tensor<1x2x5x8xf32>) -> tensor<1x2x5x8xf32>
  %o = "onnx.Transpose"(%m) <{perm = array<i64: 0, 2, 1, 3>}> {onnx_node_name = "merge"} : (tensor<1x2x5x8xf32>) -> tensor<1x5x2x8xf32>
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<20x8xf32>}> {onnx_node_name = "w"} : () -> tensor<20x8xf32>
  %c = "onnx.Constant"() <{value = dense<0.25> : tensor<20xf32>}> {onnx_node_name = "c"} : () -> tensor<20xf32>
  %g = "onnx.Gemm"(%x, %w, %c) <{transB = 1 : i64}> {onnx_node_name = "gemm"} : (tensor<5x8xf32>, tensor<20x8xf32>, tensor<20xf32>) -> tensor<5x20xf32>
  func.return %o, %g : tensor<1x5x2x8xf32>, tensor<5x20xf32>
}

// CHECK-LABEL: func.func @attention
// CHECK-NOT:     onnx.Transpose
// CHECK:         %[[S:.*]] = "kernel.matmul"(%q, %k, %{{.*}}, %{{.*}}) <{packed = 0 : i64, lanes = 16 : i64, rows = 4 : i64, bias_first = 0 : i64, fma = 0 : i64, parallel = 1 : i64, a_perm = array<i64: 0, 2, 1, 3>}> {onnx_node_name = "scores"} : (tensor<1x5x2x8xf32>, tensor<1x2x8x5xf32>, none, none) -> tensor<1x2x5x5xf32>
// CHECK:         %[[M:.*]] = "kernel.matmul"(%[[S]], %v, %{{.*}}, %{{.*}}) <{packed = 0 : i64, lanes = 16 : i64, rows = 4 : i64, bias_first = 0 : i64, fma = 0 : i64, parallel = 1 : i64, b_perm = array<i64: 0, 2, 1, 3>, y_perm = array<i64: 0, 2, 1, 3>}> {onnx_node_name = "mix"} : (tensor<1x2x5x5xf32>, tensor<1x5x2x8xf32>, none, none) -> tensor<1x5x2x8xf32>
// CHECK:         %[[W:.*]] = "onnx.Constant"() <{value = dense_resource<w_packed{{.*}}> : tensor<2x8x16xf32>}>
// CHECK:         %[[G:.*]] = "kernel.matmul"(%{{.*}}, %[[W]], %{{.*}}, %{{.*}}) <{packed = 1 : i64, lanes = 16 : i64, rows = 4 : i64, bias_first = 1 : i64, fma = 0 : i64, parallel = 1 : i64}> {onnx_node_name = "gemm"}
// CHECK-NOT:     onnx.Gemm
// CHECK-NOT:     onnx.Transpose
// CHECK:         func.return %[[M]], %{{.*}}
