// RUN: xdsl-opt -t c %s | filecheck %s

// The integer kernels' pair arithmetic is a call of the runtime's
// onnxc_widen_bytes02 / onnxc_widen_bytes13 and onnxc_dot2 (SXTB16 and SMLAD
// where the core has them, plain C with the same results elsewhere).

func.func @main(%w: memref<4xi32>, %y: memref<1xi32>) attributes {onnxc.input_names = ["w"], onnxc.output_names = ["y"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0 : i32
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (i32) {
    %word = memref.load %w[%i] : memref<4xi32>
    %even = onnxc.widen_bytes %word odd 0
    %odd = onnxc.widen_bytes %word odd 1
    %s = onnxc.dot2 %even, %odd, %acc
    scf.yield %s : i32
  }
  memref.store %sum, %y[%c0] : memref<1xi32>
  func.return
}

// CHECK:        const int32_t even = onnxc_widen_bytes02(word);
// CHECK-NEXT:   const int32_t odd = onnxc_widen_bytes13(word);
// CHECK-NEXT:   const int32_t s = onnxc_dot2(even, odd, acc);
