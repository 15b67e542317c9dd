// RUN: xdsl-opt -t c %s | filecheck %s

// String tensors in C: a constant as onnxc_string records over escaped
// literals (embedded NUL and UTF-8 kept), loads and stores as record copies,
// and the scalar string operations as runtime helper calls.

builtin.module {
  onnxc.string_global "names" : memref<2x!onnxc.string> = #onnxc.strings<memref<2x!onnxc.string>, ["cat", "d\C3\B6g\00"]>
  func.func @main(%x: memref<2x!onnxc.string>, %y: memref<2xi1>, %z: memref<2x!onnxc.string>) attributes {onnxc.input_names = ["x"], onnxc.output_names = ["y", "z"]} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %names = memref.get_global @names : memref<2x!onnxc.string>
    scf.for %i = %c0 to %c2 step %c1 {
      %a = memref.load %x[%i] : memref<2x!onnxc.string>
      %b = memref.load %names[%i] : memref<2x!onnxc.string>
      %same = onnxc.string_equal %a, %b
      memref.store %same, %y[%i] : memref<2xi1>
      %n = onnxc.string_size %b
      %rest = arith.subi %n, %c1 : index
      %tail = onnxc.string_make %b[%c1], %rest : !onnxc.string
      memref.store %tail, %z[%i] : memref<2x!onnxc.string>
    }
    func.return
  }
}

// CHECK:      #include "onnxc_strings.h"
// CHECK:      static const onnxc_string names[2] = {
// CHECK-NEXT:   {"cat", 3},
// CHECK-NEXT:   {"d\303\266g\0", 5},
// CHECK-NEXT: };
// CHECK:      {"x", ONNXC_DTYPE_STRING, 1,
// CHECK:      void *workspace, const onnxc_string *x, uint8_t *y, onnxc_string *z) {
// CHECK:        const onnxc_string a = x[i];
// CHECK-NEXT:   const onnxc_string b = names[i];
// CHECK-NEXT:   const uint8_t same = onnxc_string_equal(a, b);
// CHECK-NEXT:   y[i] = same;
// CHECK-NEXT:   const ptrdiff_t n = (ptrdiff_t)b.size;
// CHECK-NEXT:   const ptrdiff_t rest = n - 1;
// CHECK-NEXT:   const onnxc_string tail = onnxc_string_of(b.data + 1, (size_t)rest);
// CHECK-NEXT:   z[i] = tail;
