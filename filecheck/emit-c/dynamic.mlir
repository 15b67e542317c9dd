// RUN: xdsl-opt -t c %s | filecheck %s

// A model with a free dimension N (loop level, after plan-memory): N is a
// ptrdiff_t parameter of the entry points; the workspace's bytes are computed
// from it, checked against what the caller gives (ONNXC_ERR_WORKSPACE, with
// the bytes needed reported) and reported back; the output is an
// onnxc_tensor whose shape is written and capacity checked before any of its
// elements; NAME_workspace_size(N) prints the same arithmetic; NAME_invoke
// reads N from the input's shape. Loops run to N, with N in the strides.

builtin.module {
  func.func @unbounded(%N: index, %x: memref<?x4xf32>, %out0: memref<?x4xf32>) attributes {onnxc.dims = ["N"], onnxc.input_names = ["x"], onnxc.output_names = ["z"], onnxc.memory = {arena = 0 : i64, intermediates = 0 : i64, max_live = 0 : i64, greedy_by_size = 0 : i64, in_place = 0 : i64}} {
    %0 = arith.constant 16 : index
    %1 = arith.muli %N, %0 : index
    %2 = arith.addi %1, %1 : index
    %3 = arith.ceildivsi %2, %0 : index
    %4 = arith.muli %3, %0 : index
    %arena = memref.alloc(%4) {alignment = 16 : i64, onnxc.arena} : memref<?xi8>
    %5 = onnxc.input %x[%N] index 0 : i64 : memref<?x4xf32> to memref<?x4xf32>
    %6 = arith.constant 0 : index
    %t = memref.view %arena[%6][%N] : memref<?xi8> to memref<?x4xf32>
    %7 = arith.constant {onnxc.comment = "Relu Relu_0"} 0 : index
    %8 = memref.dim %5, %7 {onnxc.comment = "Relu Relu_0"} : memref<?x4xf32>
    %9 = arith.constant {onnxc.comment = "Relu Relu_0"} 4 : index
    %10 = arith.constant {onnxc.comment = "Relu Relu_0"} 0 : index
    %11 = arith.constant {onnxc.comment = "Relu Relu_0"} 1 : index
    %12 = arith.constant {onnxc.comment = "Relu Relu_0"} 0.000000e+00 : f32
    scf.for %13 = %10 to %8 step %11 {
      scf.for %14 = %10 to %9 step %11 {
        %15 = memref.load %5[%13, %14] {onnxc.comment = "Relu Relu_0"} : memref<?x4xf32>
        %16 = arith.maximumf %15, %12 {onnxc.comment = "Relu Relu_0"} : f32
        memref.store %16, %t[%13, %14] {onnxc.comment = "Relu Relu_0"} : memref<?x4xf32>
      } {onnxc.comment = "Relu Relu_0"}
    } {onnxc.comment = "Relu Relu_0"}
    %u = memref.view %arena[%1][%N] : memref<?xi8> to memref<4x?xf32>
    %17 = arith.constant {onnxc.comment = "Transpose Transpose_1"} 4 : index
    %18 = arith.constant {onnxc.comment = "Transpose Transpose_1"} 0 : index
    %19 = memref.dim %t, %18 {onnxc.comment = "Transpose Transpose_1"} : memref<?x4xf32>
    %20 = arith.constant {onnxc.comment = "Transpose Transpose_1"} 0 : index
    %21 = arith.constant {onnxc.comment = "Transpose Transpose_1"} 1 : index
    scf.for %22 = %20 to %17 step %21 {
      scf.for %23 = %20 to %19 step %21 {
        %24 = memref.load %t[%23, %22] {onnxc.comment = "Transpose Transpose_1"} : memref<?x4xf32>
        memref.store %24, %u[%22, %23] {onnxc.comment = "Transpose Transpose_1"} : memref<4x?xf32>
      } {onnxc.comment = "Transpose Transpose_1"}
    } {onnxc.comment = "Transpose Transpose_1"}
    %z = onnxc.output %out0[%N] index 0 : i64 : memref<?x4xf32> to memref<?x4xf32>
    %25 = arith.constant {onnxc.comment = "Transpose Transpose_2"} 1 : index
    %26 = memref.dim %u, %25 {onnxc.comment = "Transpose Transpose_2"} : memref<4x?xf32>
    %27 = arith.constant {onnxc.comment = "Transpose Transpose_2"} 4 : index
    %28 = arith.constant {onnxc.comment = "Transpose Transpose_2"} 0 : index
    %29 = arith.constant {onnxc.comment = "Transpose Transpose_2"} 1 : index
    scf.for %30 = %28 to %26 step %29 {
      scf.for %31 = %28 to %27 step %29 {
        %32 = memref.load %u[%31, %30] {onnxc.comment = "Transpose Transpose_2"} : memref<4x?xf32>
        memref.store %32, %z[%30, %31] {onnxc.comment = "Transpose Transpose_2"} : memref<?x4xf32>
      } {onnxc.comment = "Transpose Transpose_2"}
    } {onnxc.comment = "Transpose Transpose_2"}
    func.return
  }
}


// CHECK:       static const int64_t model_inputs0_shape[2] = {-1, 4};
// CHECK-NEXT:  static const char *const model_inputs0_dim_names[2] = {"N", NULL};
// CHECK:       int model_run_with_workspace(
// CHECK-NEXT:      void *workspace, size_t *workspace_size, ptrdiff_t N, const float *x, onnxc_tensor *z) {
// CHECK:         if (N < 0) {
// CHECK-NEXT:      return ONNXC_ERR_SHAPE;
// CHECK:         const size_t available = *workspace_size;
// CHECK-NEXT:    size_t needed = 0;
// CHECK-NEXT:    const ptrdiff_t [[BYTES:v[0-9]+]] = N * 16;
// CHECK:         if (available < (size_t)[[ARENA:v[0-9]+]]) {
// CHECK-NEXT:      *workspace_size = (size_t)[[ARENA]];
// CHECK-NEXT:      return ONNXC_ERR_WORKSPACE;
// CHECK:         float *const u = (float *)(arena + [[BYTES]]);
// CHECK:         for (ptrdiff_t [[I:i[0-9]+]] = 0; [[I]] < N; ++[[I]]) {
// CHECK:         int short_output = 0;
// CHECK-NEXT:    z->shape[0] = (int64_t)N;
// CHECK-NEXT:    z->shape[1] = (int64_t)4;
// CHECK-NEXT:    if (z->capacity < (size_t)(N * 4)) {
// CHECK-NEXT:      short_output = 1;
// CHECK-NEXT:    }
// CHECK-NEXT:    if (short_output) {
// CHECK-NEXT:      return ONNXC_ERR_CAPACITY;
// CHECK:         *workspace_size = needed;
// CHECK-NEXT:    return ONNXC_OK;
// CHECK:       size_t model_workspace_size(ptrdiff_t N) {
// CHECK-NEXT:    const ptrdiff_t [[W:v[0-9]+]] = N * 16;
// CHECK:         return (size_t)v{{[0-9]+}};
// CHECK:       int model_invoke(void *workspace, size_t *workspace_size,
// CHECK:         N = (ptrdiff_t)inputs[0].shape[0];
// CHECK:         return model_run_with_workspace(workspace, workspace_size, N, (const float *)inputs[0].data, &outputs[0]);
