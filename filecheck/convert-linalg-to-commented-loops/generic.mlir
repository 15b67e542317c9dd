// RUN: xdsl-opt -p convert-linalg-to-commented-loops %s | filecheck %s

// A structured op becomes a loop nest, and its onnxc.comment moves onto the
// outermost loop (not onto the index constants before it).

// CHECK-LABEL: func.func @relu(
// CHECK-SAME:    %[[X:.*]]: memref<2x3xf32>, %[[OUT:.*]]: memref<2x3xf32>)
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[X]][%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK:             %[[R:.*]] = arith.maximumf %[[V]], %{{.*}} : f32
// CHECK-NEXT:        memref.store %[[R]], %[[OUT]][%[[I]], %[[J]]] : memref<2x3xf32>
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
