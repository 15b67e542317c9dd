// RUN: xdsl-opt -p convert-linalg-to-commented-loops --split-input-file %s | filecheck %s
// RUN: xdsl-opt -p convert-linalg-to-commented-loops,canonicalize --split-input-file %s | filecheck %s --check-prefix=CANON

// A structured op becomes a loop nest, and every op of the nest carries its
// onnxc.comment (not only the outermost loop, which canonicalize may fold away).

// CHECK-LABEL: func.func @relu(
// CHECK-SAME:    %[[X:.*]]: memref<2x3xf32>, %[[OUT:.*]]: memref<2x3xf32>)
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[X]][%[[I]], %[[J]]] {onnxc.comment = "Relu relu1"} : memref<2x3xf32>
// CHECK:             %[[R:.*]] = arith.maximumf %[[V]], %{{.*}} {onnxc.comment = "Relu relu1"} : f32
// CHECK-NEXT:        memref.store %[[R]], %[[OUT]][%[[I]], %[[J]]] {onnxc.comment = "Relu relu1"} : memref<2x3xf32>
// CHECK:           } {onnxc.comment = "Relu relu1"}
// CHECK:         } {onnxc.comment = "Relu relu1"}
func.func @relu(%x: memref<2x3xf32>, %out: memref<2x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x3xf32>) outs(%out : memref<2x3xf32>) attrs = {onnxc.comment = "Relu relu1"} {
  ^bb0(%a: f32, %b: f32):
    %zero = arith.constant 0.000000e+00 : f32
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  }
  func.return
}

// -----

// A batch of one: canonicalize removes the one-trip loop, the comment stays on
// the loop that is left and on the ops inside it.

// CANON-LABEL: func.func @relu_batch_one(
// CANON:         scf.for
// CANON-NOT:     scf.for
// CANON:           memref.load {{.*}} {onnxc.comment = "Relu relu2"}
// CANON:         } {onnxc.comment = "Relu relu2"}
func.func @relu_batch_one(%x: memref<1x3xf32>, %out: memref<1x3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<1x3xf32>) outs(%out : memref<1x3xf32>) attrs = {onnxc.comment = "Relu relu2"} {
  ^bb0(%a: f32, %b: f32):
    %zero = arith.constant 0.000000e+00 : f32
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  }
  func.return
}
