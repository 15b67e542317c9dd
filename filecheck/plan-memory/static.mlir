// RUN: xdsl-opt -p plan-memory --split-input-file %s | filecheck %s

// A chain: t1 = relu(x); t2 = exp(t1); out = t2 * 2. t2 can take t1's bytes
// (same map, t1 dies there), so one 24-byte slot serves both.

// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    onnxc.memory = {arena = 24 : i64, intermediates = 48 : i64, max_live = 32 : i64, greedy_by_size = 56 : i64, in_place = 1 : i64}
// CHECK-NEXT:    %[[ARENA:.*]] = memref.alloc() {alignment = 16 : i64, onnxc.arena} : memref<24xi8>
// CHECK-NEXT:    %[[OFF1:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[T1:.*]] = memref.view %[[ARENA]][%[[OFF1]]][] : memref<24xi8> to memref<2x3xf32>
// CHECK:         %[[OFF2:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[T2:.*]] = memref.view %[[ARENA]][%[[OFF2]]][] : memref<24xi8> to memref<2x3xf32>
// CHECK-NOT:     memref.alloc
func.func @chain(%x: memref<2x3xf32>, %out: memref<2x3xf32>) {
  %t1 = memref.alloc() : memref<2x3xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x3xf32>) outs(%t1 : memref<2x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %zero = arith.constant 0.000000e+00 : f32
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  }
  %t2 = memref.alloc() : memref<2x3xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t1 : memref<2x3xf32>) outs(%t2 : memref<2x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t2 : memref<2x3xf32>) outs(%out : memref<2x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  }
  func.return
}

// -----

// Not in place: x1 is read again after the op that could overwrite it, and a
// transposed read may not share bytes with its output. Disjoint lifetimes
// share: t3 takes t1's offset once t1 is dead.

// CHECK-LABEL: func.func @no_in_place(
// CHECK-SAME:    onnxc.memory = {arena = 32 : i64, intermediates = 48 : i64, max_live = 32 : i64, greedy_by_size = 32 : i64, in_place = 0 : i64}
// CHECK:         %[[ARENA:.*]] = memref.alloc() {alignment = 16 : i64, onnxc.arena} : memref<32xi8>
// CHECK:         %[[O1:.*]] = arith.constant [[OFF1:[0-9]+]] : index
// CHECK-NEXT:    %[[T1:.*]] = memref.view %[[ARENA]][%[[O1]]][] : memref<32xi8> to memref<2x2xf32>
// CHECK:         %[[O2:.*]] = arith.constant [[OFF2:[0-9]+]] : index
// CHECK-NEXT:    %[[T2:.*]] = memref.view %[[ARENA]][%[[O2]]][] : memref<32xi8> to memref<2x2xf32>
// CHECK:         %[[O3:.*]] = arith.constant [[OFF1]] : index
// CHECK-NEXT:    %[[T3:.*]] = memref.view %[[ARENA]][%[[O3]]][] : memref<32xi8> to memref<2x2xf32>
func.func @no_in_place(%x: memref<2x2xf32>, %out: memref<2x2xf32>) {
  %t1 = memref.alloc() : memref<2x2xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x2xf32>) outs(%t1 : memref<2x2xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  %t2 = memref.alloc() : memref<2x2xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t1 : memref<2x2xf32>) outs(%t2 : memref<2x2xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  %t3 = memref.alloc() : memref<2x2xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t2 : memref<2x2xf32>) outs(%t3 : memref<2x2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t3, %t2 : memref<2x2xf32>, memref<2x2xf32>) outs(%out : memref<2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  }
  func.return
}
