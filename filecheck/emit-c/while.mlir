// RUN: xdsl-opt -t c %s | filecheck %s

// scf.while is a `for (;;)` loop: the `before` region, a `break` unless
// its condition holds (the forwarded values become the results), then the
// `after` region, whose yield updates the carried values.

func.func @main(%flag: memref<i1>, %x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = scf.while (%i = %c0) : (index) -> index {
    %go = memref.load %flag[] : memref<i1>
    %below = arith.cmpi slt, %i, %c4 : index
    %both = arith.andi %go, %below : i1
    scf.condition(%both) %i : index
  } do {
  ^bb0(%j: index):
    %v = memref.load %x[%j] : memref<4xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[%j] : memref<4xf32>
    %next = arith.addi %j, %c1 : index
    scf.yield %next : index
  }
  func.return
}

// CHECK:      ptrdiff_t i = 0;
// CHECK-NEXT: ptrdiff_t n = 0;
// CHECK-NEXT: for (;;) {
// CHECK-NEXT:   const uint8_t go = arg0[0];
// CHECK-NEXT:   const uint8_t below = i < 4;
// CHECK-NEXT:   const uint8_t both = go & below;
// CHECK-NEXT:   n = i;
// CHECK-NEXT:   if (!both) break;
// CHECK-NEXT:   const float v = arg1[n];
// CHECK-NEXT:   const float w = v + v;
// CHECK-NEXT:   arg1[n] = w;
// CHECK-NEXT:   const ptrdiff_t next = n + 1;
// CHECK-NEXT:   i = next;
// CHECK-NEXT: }
// CHECK-NEXT: (void)n;
