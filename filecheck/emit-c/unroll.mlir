// RUN: xdsl-opt -t c %s | filecheck %s

// A loop marked onnxc.unroll = n is preceded by the runtime's
// ONNXC_UNROLL(n) (gcc's `#pragma GCC unroll n`, nothing for other
// compilers); an unmarked one is not.
func.func @main(%x: memref<4x8xf32>, %y: memref<4x8xf32>) attributes {onnxc.input_names = ["x"], onnxc.output_names = ["y"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %a = memref.load %x[%i, %j] : memref<4x8xf32>
      memref.store %a, %y[%i, %j] : memref<4x8xf32>
    } {onnxc.unroll = 8 : i64}
  }
  func.return
}

// CHECK:      for (ptrdiff_t i = 0; i < 4; ++i) {
// CHECK-NEXT:   ONNXC_UNROLL(8)
// CHECK-NEXT:   for (ptrdiff_t j = 0; j < 8; ++j) {
// CHECK-NOT:  ONNXC_UNROLL
