// RUN: xdsl-opt -p fold-add-into-accumulator --split-input-file %s | filecheck %s

// A residual block: p = bias broadcast, then accumulated (a matmul-like
// reduction), then y = p + s. The Add folds into the initialisation, y is p.

// CHECK-LABEL: func.func @residual(
// CHECK-SAME:    %[[S:.*]]: memref<2x3xf32>, %[[W:.*]]: memref<3x3xf32>, %[[B:.*]]: memref<3xf32>, %[[Y:.*]]: memref<2x3xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[B]], %[[S]] : memref<3xf32>, memref<2x3xf32>) outs(%[[Y]] : memref<2x3xf32>) attrs = {onnxc.comment = "Gemm g + Add a"} {
// CHECK-NEXT:    ^{{.*}}(%[[BV:.*]]: f32, %[[SV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[BV]], %[[SV]] : f32
// CHECK-NEXT:      linalg.yield %[[SUM]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[S]], %[[W]] : memref<2x3xf32>, memref<3x3xf32>) outs(%[[Y]] : memref<2x3xf32>)
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     linalg.generic
// CHECK:         func.return
func.func @residual(%s: memref<2x3xf32>, %w: memref<3x3xf32>, %b: memref<3xf32>, %y: memref<2x3xf32>) {
  %p = memref.alloc() : memref<2x3xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b : memref<3xf32>) outs(%p : memref<2x3xf32>) attrs = {onnxc.comment = "Gemm g"} {
  ^bb0(%bv: f32, %o: f32):
    linalg.yield %bv : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%s, %w : memref<2x3xf32>, memref<3x3xf32>) outs(%p : memref<2x3xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p, %s : memref<2x3xf32>, memref<2x3xf32>) outs(%y : memref<2x3xf32>) attrs = {onnxc.comment = "Add a"} {
  ^bb0(%x0: f32, %x1: f32, %o: f32):
    %r = arith.addf %x0, %x1 : f32
    linalg.yield %r : f32
  }
  func.return
}

// -----

// Not folded: p is read by another op before the Add (a second consumer would
// see p + s).

// CHECK-LABEL: func.func @second_reader(
// CHECK:         %[[P:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         linalg.fill ins(%{{.*}} : f32) outs(%[[P]] : memref<4xf32>)
// CHECK-COUNT-3: linalg.generic
func.func @second_reader(%s: memref<4xf32>, %y: memref<4xf32>, %z: memref<4xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %p = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%s : memref<4xf32>) outs(%p : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.mulf %acc, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%p : memref<4xf32>) outs(%z : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%p, %s : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%x0: f32, %x1: f32, %o: f32):
    %r = arith.addf %x0, %x1 : f32
    linalg.yield %r : f32
  }
  func.return
}
