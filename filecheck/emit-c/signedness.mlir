// RUN: xdsl-opt -t c %s | filecheck %s

// The type decides the C storage, the operation the meaning: divui on an i32
// (int32_t) divides as unsigned, cmpi slt on a ui8 (uint8_t) compares as
// signed; nothing is undefined behaviour: wrapping arithmetic goes through an
// unsigned type wide enough to escape int promotion, division by zero and
// shifts by the width or more have defined results, float-to-int saturates,
// and float16 words convert through the runtime.

func.func @main(%a: memref<4xi32>, %b: memref<4xui8>, %h: memref<4xf16>, %o: memref<4xi32>, %p: memref<4xi1>, %q: memref<4xi8>, %r: memref<4xf16>) attributes {onnxc.input_names = ["a", "b", "h"], onnxc.output_names = ["o", "p", "q", "r"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xi32>
    %u = arith.divui %x, %x : i32
    %m = arith.muli %u, %x : i32
    memref.store %m, %o[%i] : memref<4xi32>
    %v = arith.muli %u, %x overflow<nsw> : i32
    %t = arith.addi %v, %x overflow<nsw> : i32
    memref.store %t, %o[%i] : memref<4xi32>
    %y = memref.load %b[%i] : memref<4xui8>
    %lt = arith.cmpi slt, %y, %y : ui8
    memref.store %lt, %p[%i] : memref<4xi1>
    %s = arith.trunci %x : i32 to i8
    %sh = arith.shli %s, %s : i8
    %sh8 = arith.trunci %x : i32 to i8
    %e = arith.addi %sh8, %sh8 overflow<nsw> : i8
    memref.store %e, %q[%i] : memref<4xi8>
    memref.store %sh, %q[%i] : memref<4xi8>
    %w = memref.load %h[%i] : memref<4xf16>
    %f = arith.extf %w : f16 to f32
    %g = arith.fptosi %f : f32 to i32
    memref.store %g, %o[%i] : memref<4xi32>
    %n = arith.truncf %f : f32 to f16
    memref.store %n, %r[%i] : memref<4xf16>
  }
  func.return
}

// CHECK:      const int32_t x = a[i];
// CHECK-NEXT: const int32_t u = (int32_t)onnxc_divu32((uint32_t)x, (uint32_t)x);
// CHECK-NEXT: const int32_t m = (int32_t)((uint32_t)u * (uint32_t)x);
// Marked `nsw` (the producer proved they cannot overflow), 32- and 64-bit
// arithmetic is plain signed C, which compilers vectorize as dot products;
// narrower types keep wrapping (C would compute them in int).
// CHECK:      const int32_t v = u * x;
// CHECK-NEXT: const int32_t t = v + x;
// CHECK:      const uint8_t y = b[i];
// CHECK-NEXT: const uint8_t lt = (int8_t)y < (int8_t)y;
// CHECK:      const int8_t s = (int8_t)(uint8_t)x;
// CHECK-NEXT: const int8_t sh = (uint8_t)s >= 8 ? (int8_t)0 : (int8_t)((uint32_t)s << (uint8_t)s);
// CHECK:      const int8_t e = (int8_t)((uint32_t)sh8 + (uint32_t)sh8);
// CHECK:      const uint16_t w = h[i];
// CHECK-NEXT: const float f = onnxc_f16_to_f32(w);
// CHECK-NEXT: const int32_t g = (int32_t)onnxc_fptosi(f, INT64_C(-2147483648), 2147483647);
// CHECK:      const uint16_t n = onnxc_f32_to_f16(f);
