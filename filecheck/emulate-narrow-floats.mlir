// RUN: xdsl-opt -p emulate-narrow-floats --split-input-file %s | filecheck %s

// float16 arithmetic is computed in float: loads are widened once, the
// result is narrowed once where it is stored, constants become float.

// CHECK-LABEL: func.func @add_half(
// CHECK:         %[[A:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<4xf16>
// CHECK-NEXT:    %[[WA:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT:    %[[B:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<4xf16>
// CHECK-NEXT:    %[[WB:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[WA]], %[[WB]] : f32
// CHECK-NEXT:    %[[H:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[S]], %[[H]] : f32
// CHECK-NEXT:    %[[N:.*]] = arith.truncf %[[M]] : f32 to f16
// CHECK-NEXT:    memref.store %[[N]], %{{.*}}[%{{.*}}] : memref<4xf16>
func.func @add_half(%a: memref<4xf16>, %b: memref<4xf16>, %y: memref<4xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xf16>
    %z = memref.load %b[%i] : memref<4xf16>
    %s = arith.addf %x, %z : f16
    %half = arith.constant 0.5 : f16
    %m = arith.mulf %s, %half : f16
    memref.store %m, %y[%i] : memref<4xf16>
  }
  func.return
}

// -----

// A copy is not converted; a loop-carried bfloat16 sum is carried in float
// and rounded once; a conversion into bfloat16 keeps its rounding.

// CHECK-LABEL: func.func @sum_bf16(
// CHECK:         %[[V:.*]] = memref.load %[[X:.*]][%{{.*}}] : memref<4xbf16>
// CHECK-NEXT:    memref.store %[[V]], %{{.*}}[%{{.*}}] : memref<4xbf16>
// CHECK:         %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK:           %[[L:.*]] = memref.load %[[X]][%{{.*}}] : memref<4xbf16>
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[L]] : bf16 to f32
// CHECK-NEXT:      %[[N:.*]] = arith.addf %[[ACC]], %[[W]] : f32
// CHECK-NEXT:      scf.yield %[[N]] : f32
// CHECK:         %[[T:.*]] = arith.truncf %[[R]] : f32 to bf16
// CHECK-NEXT:    memref.store %[[T]], %{{.*}}[] : memref<bf16>
// CHECK:         %[[F:.*]] = arith.sitofp %{{.*}} : i32 to bf16
// CHECK-NEXT:    %[[WF:.*]] = arith.extf %[[F]] : bf16 to f32
// CHECK-NEXT:    %{{.*}} = arith.mulf %[[WF]], %[[WF]] : f32
func.func @sum_bf16(%x: memref<4xbf16>, %copy: memref<4xbf16>, %y: memref<bf16>, %k: i32, %p: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xbf16>
    memref.store %v, %copy[%i] : memref<4xbf16>
  }
  %zero = arith.constant 0.0 : bf16
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (bf16) {
    %l = memref.load %x[%i] : memref<4xbf16>
    %n = arith.addf %acc, %l : bf16
    scf.yield %n : bf16
  }
  memref.store %r, %y[] : memref<bf16>
  %f = arith.sitofp %k : i32 to bf16
  %sq = arith.mulf %f, %f : bf16
  %w = arith.extf %sq : bf16 to f32
  memref.store %w, %p[] : memref<f32>
  func.return
}
