// RUN: xdsl-opt -p insert-profile-marks %s | filecheck %s
// RUN: xdsl-opt -p insert-profile-marks -t c %s | filecheck %s --check-prefix=C

// A mark before the first op of each run of ops with one comment (an op
// without a comment stays in the step before it), and one with the step
// count and an empty label before the return; ops before the first
// comment are in no step.

func.func @main(%x: memref<4xf32>, %y: memref<4xf32>) attributes {onnxc.input_names = ["x"], onnxc.output_names = ["y"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf32>
    %t = math.tanh %v : f32
    memref.store %t, %y[%i] : memref<4xf32>
  } {onnxc.comment = "Tanh t"}
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %y[%i] : memref<4xf32>
    %d = arith.mulf %v, %two : f32
    memref.store %d, %y[%i] : memref<4xf32>
  } {onnxc.comment = "Mul m"}
  func.return
}

// CHECK-LABEL: func.func @main
// CHECK:         %{{.*}} = arith.constant 4 : index
// CHECK-NEXT:    onnxc.profile_mark 0 : i64, "Tanh t" {onnxc.comment = "Tanh t"}
// CHECK-NEXT:    scf.for
// CHECK:         } {onnxc.comment = "Tanh t"}
// CHECK-NEXT:    %{{.*}} = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:    onnxc.profile_mark 1 : i64, "Mul m" {onnxc.comment = "Mul m"}
// CHECK-NEXT:    scf.for
// CHECK:         } {onnxc.comment = "Mul m"}
// CHECK-NEXT:    onnxc.profile_mark 2 : i64, ""
// CHECK-NEXT:    func.return

// C:      /* Tanh t */
// C-NEXT: onnxc_profile_mark(0, "Tanh t");
// C-NEXT: for (ptrdiff_t i = 0; i < 4; ++i) {
// C:      /* Mul m */
// C-NEXT: onnxc_profile_mark(1, "Mul m");
// C:      onnxc_profile_mark(2, "");
// C-NEXT: return ONNXC_OK;
