// RUN: xdsl-opt -t c %s | filecheck %s

// An elementwise add through a planned arena buffer (a memref.view of the
// arena), with a weight and a reshape alias.

"memref.global"() <{sym_name = "bias", sym_visibility = "private", type = memref<3xf32>, initial_value = dense<[0.5, -2.0, 1.0e-3]> : tensor<3xf32>, constant}> : () -> ()
func.func @main(%x: memref<2x3xf32>, %z: memref<6xf32>) attributes {onnxc.input_names = ["input.1"], onnxc.output_names = ["out"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %b = memref.get_global @bias : memref<3xf32>
  %arena = memref.alloc() {onnxc.arena} : memref<24xi8>
  %t = memref.view %arena[%c0][] : memref<24xi8> to memref<2x3xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %a = memref.load %x[%i, %j] : memref<2x3xf32>
      %w = memref.load %b[%j] : memref<3xf32>
      %s = arith.addf %a, %w {onnxc.comment = "Add: /add_1 */"} : f32
      memref.store %s, %t[%i, %j] : memref<2x3xf32>
    }
  }
  %flat = memref.collapse_shape %t [[0, 1]] : memref<2x3xf32> into memref<6xf32>
  "memref.copy"(%flat, %z) : (memref<6xf32>, memref<6xf32>) -> ()
  func.return
}

// CHECK:      #include "model.h"
// CHECK:      #include <math.h>
// CHECK:      static const float bias[3] ONNXC_WEIGHT_ATTRIBUTES = {
// CHECK-NEXT:   0.5f, (-2.0f), 0.00100000005f,
// CHECK-NEXT: };
// CHECK:      {"input.1", ONNXC_DTYPE_FLOAT, 2, model_inputs0_shape, model_inputs0_shape, NULL},
// CHECK:      int model_run_with_workspace(
// CHECK-NEXT:     void *workspace, const float *input_1, float *out) {
// CHECK:        unsigned char *const arena = (unsigned char *)workspace;
// CHECK-NEXT:   float *const t = (float *)arena;
// CHECK-NEXT:   for (ptrdiff_t i = 0; i < 2; ++i) {
// CHECK-NEXT:     for (ptrdiff_t j = 0; j < 3; ++j) {
// CHECK-NEXT:       const float a = input_1[i * 3 + j];
// CHECK-NEXT:       const float w = bias[j];
// CHECK-NEXT:       /* Add: /add_1 * / */
// CHECK-NEXT:       const float s = a + w;
// CHECK-NEXT:       t[i * 3 + j] = s;
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   for (ptrdiff_t k0 = 0; k0 < 6; ++k0) {
// CHECK-NEXT:     out[k0] = t[k0];
// CHECK-NEXT:   }
// CHECK-NEXT:   return ONNXC_OK;
// CHECK-NEXT: }
// CHECK:      int model_run(const float *input_1, float *out) {
// CHECK:      #define model_WORKSPACE_SIZE 24
// CHECK:      int model_run(const float *input_1, float *out);
