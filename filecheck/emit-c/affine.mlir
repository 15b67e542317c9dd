// RUN: xdsl-opt -t c %s | filecheck %s

// affine.apply is printed inline; floordiv / mod / ceildiv use the runtime's
// helpers, which round toward negative infinity like MLIR.

func.func @main(%x: memref<16xf32>, %y: memref<3x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %p = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1 - 1)>(%i, %j)
      %q = affine.apply affine_map<(d0) -> (d0 floordiv 2 + d0 mod 2 + d0 ceildiv 3)>(%p)
      %v = memref.load %x[%q] : memref<16xf32>
      memref.store %v, %y[%i, %j] : memref<3x4xf32>
    }
  }
  func.return
}

// CHECK:      const ptrdiff_t p = i * 4 + j - 1;
// CHECK-NEXT: const ptrdiff_t q = onnxc_floordiv(p, 2) + onnxc_mod(p, 2) + onnxc_ceildiv(p, 3);
// CHECK-NEXT: const float v = arg0[q];
// CHECK-NEXT: arg1[i * 4 + j] = v;
