// RUN: xdsl-opt -t c %s | filecheck %s

// onnxc.uniform is a call of the runtime's counter-based generator:
// onnxc_uniformf for float, onnxc_uniform for double.

func.func @main(%f: memref<4xf32>, %d: memref<4xf64>) attributes {onnxc.input_names = [], onnxc.output_names = ["f", "d"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %key = arith.constant -7 : i64
  scf.for %i = %c0 to %c4 step %c1 {
    %n = arith.index_cast %i : index to i64
    %u = onnxc.uniform %key, %n : f32
    memref.store %u, %f[%i] : memref<4xf32>
    %v = onnxc.uniform %key, %n : f64
    memref.store %v, %d[%i] : memref<4xf64>
  }
  func.return
}

// CHECK:      for (ptrdiff_t i = 0; i < 4; ++i) {
// CHECK-NEXT:   const int64_t n = (int64_t)i;
// CHECK-NEXT:   const float u = onnxc_uniformf((-7), n);
// CHECK-NEXT:   f[i] = u;
// CHECK-NEXT:   const double v = onnxc_uniform((-7), n);
// CHECK-NEXT:   d[i] = v;
