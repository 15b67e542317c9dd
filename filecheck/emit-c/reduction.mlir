// RUN: xdsl-opt -t c %s | filecheck %s

// A row sum: scf.for iter_args become a mutable local updated by scf.yield.

func.func @main(%x: memref<4x5xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %r = scf.for %j = %c0 to %c5 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%i, %j] : memref<4x5xf32>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    memref.store %r, %y[%i] : memref<4xf32>
  }
  func.return
}

// CHECK:      int model_run_with_workspace(
// CHECK-NEXT:     void *workspace, const float *arg0, float *arg1) {
// CHECK:        for (ptrdiff_t i = 0; i < 4; ++i) {
// CHECK-NEXT:     float acc = 0.0f;
// CHECK-NEXT:     for (ptrdiff_t j = 0; j < 5; ++j) {
// CHECK-NEXT:       const float v = arg0[i * 5 + j];
// CHECK-NEXT:       const float n = acc + v;
// CHECK-NEXT:       acc = n;
// CHECK-NEXT:     }
// CHECK-NEXT:     arg1[i] = acc;
// CHECK-NEXT:   }
// CHECK:      #define model_WORKSPACE_SIZE 0
