// RUN: xdsl-opt -t c %s | filecheck %s

// onnxc.sigmoid is the runtime's vectorisable onnxc_sigmoidf on float, and
// the formula on double.
func.func @main(%x: memref<4xf32>, %d: memref<4xf64>, %y: memref<4xf32>, %e: memref<4xf64>) attributes {onnxc.input_names = ["x", "d"], onnxc.output_names = ["y", "e"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.load %x[%i] : memref<4xf32>
    %s = onnxc.sigmoid %a : f32
    memref.store %s, %y[%i] : memref<4xf32>
    %b = memref.load %d[%i] : memref<4xf64>
    %t = onnxc.sigmoid %b : f64
    memref.store %t, %e[%i] : memref<4xf64>
  }
  func.return
}

// CHECK:      for (ptrdiff_t i = 0; i < 4; ++i) {
// CHECK-NEXT:   const float a = x[i];
// CHECK-NEXT:   const float s = onnxc_sigmoidf(a);
// CHECK-NEXT:   y[i] = s;
// CHECK-NEXT:   const double b = d[i];
// CHECK-NEXT:   const double t = 1.0 / (1.0 + exp(-b));
// CHECK-NEXT:   e[i] = t;
