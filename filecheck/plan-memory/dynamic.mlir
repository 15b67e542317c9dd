// RUN: xdsl-opt -p plan-memory --split-input-file %s | filecheck %s

// Buffers whose sizes depend on a free dimension. Unbounded, they share slots
// by lifetime, sized at run time: the arena's bytes are computed from N at the
// top of the function, and each buffer is a view at a run-time offset (u's
// slot starts after t's 16 N bytes). A byte size is computed without
// overflow: past 2^44 bytes it saturates (and the model refuses the sizes).

func.func @unbounded(%N: index, %x: memref<?x4xf32>, %out0: memref<?x4xf32>) attributes {onnxc.dims = ["N"], onnxc.input_names = ["x"], onnxc.output_names = ["z"]} {
  %0 = onnxc.input %x[%N] index 0 : i64 : memref<?x4xf32> to memref<?x4xf32>
  %t = memref.alloc(%N) : memref<?x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0 : memref<?x4xf32>) outs(%t : memref<?x4xf32>) attrs =  {onnxc.comment = "Relu Relu_0"} {
  ^bb0(%1: f32, %2: f32):
    %3 = arith.constant 0.000000e+00 : f32
    %4 = arith.maximumf %1, %3 : f32
    linalg.yield %4 : f32
  }
  %u = memref.alloc(%N) : memref<4x?xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : memref<?x4xf32>) outs(%u : memref<4x?xf32>) attrs =  {onnxc.comment = "Transpose Transpose_1"} {
  ^bb0(%5: f32, %6: f32):
    linalg.yield %5 : f32
  }
  %z = onnxc.output %out0[%N] index 0 : i64 : memref<?x4xf32> to memref<?x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%u : memref<4x?xf32>) outs(%z : memref<?x4xf32>) attrs =  {onnxc.comment = "Transpose Transpose_2"} {
  ^bb0(%7: f32, %8: f32):
    linalg.yield %7 : f32
  }
  func.return
}

// CHECK-LABEL: func.func @unbounded(%N: index
// CHECK-SAME:    onnxc.memory = {arena = 0 : i64
// CHECK:         %[[SIXTEEN:.*]] = arith.constant 16 : index
// CHECK:         %[[BYTES:.*]] = arith.muli %{{.*}}, %[[SIXTEEN]] : index
// CHECK:         %[[SATURATED:.*]] = arith.minsi %[[BYTES]], %{{.*}} : index
// CHECK:         %arena = memref.alloc(%{{.*}}) {alignment = 16 : i64, onnxc.arena} : memref<?xi8>
// CHECK:         %t = memref.view %arena[%{{.*}}][%N] : memref<?xi8> to memref<?x4xf32>
// CHECK:         %u = memref.view %arena[%{{.*}}][%N] : memref<?xi8> to memref<4x?xf32>

// -----

// The same with N bounded (max_dims): constant offsets planned at the bound
// (t at 0, u after t's 8 x 16 bytes); the arena needs what this N uses.

func.func @bounded(%N: index, %x: memref<?x4xf32>, %out0: memref<?x4xf32>) attributes {onnxc.dims = ["N"], onnxc.max_dims = {N = 8 : i64}, onnxc.input_names = ["x"], onnxc.output_names = ["z"]} {
  %0 = onnxc.input %x[%N] index 0 : i64 : memref<?x4xf32> to memref<?x4xf32>
  %t = memref.alloc(%N) : memref<?x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0 : memref<?x4xf32>) outs(%t : memref<?x4xf32>) attrs =  {onnxc.comment = "Relu Relu_0"} {
  ^bb0(%1: f32, %2: f32):
    %3 = arith.constant 0.000000e+00 : f32
    %4 = arith.maximumf %1, %3 : f32
    linalg.yield %4 : f32
  }
  %u = memref.alloc(%N) : memref<4x?xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : memref<?x4xf32>) outs(%u : memref<4x?xf32>) attrs =  {onnxc.comment = "Transpose Transpose_1"} {
  ^bb0(%5: f32, %6: f32):
    linalg.yield %5 : f32
  }
  %z = onnxc.output %out0[%N] index 0 : i64 : memref<?x4xf32> to memref<?x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%u : memref<4x?xf32>) outs(%z : memref<?x4xf32>) attrs =  {onnxc.comment = "Transpose Transpose_2"} {
  ^bb0(%7: f32, %8: f32):
    linalg.yield %7 : f32
  }
  func.return
}

// CHECK-LABEL: func.func @bounded(%N: index
// CHECK-SAME:    onnxc.memory = {arena = 256 : i64
// CHECK:         %arena = memref.alloc(%{{.*}}) {alignment = 16 : i64, onnxc.arena} : memref<?xi8>
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %t = memref.view %arena[%[[ZERO]]][%N] : memref<?xi8> to memref<?x4xf32>
// CHECK:         %[[AT:.*]] = arith.constant 128 : index
// CHECK-NEXT:    %u = memref.view %arena[%[[AT]]][%N] : memref<?xi8> to memref<4x?xf32>
