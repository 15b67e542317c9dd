// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// A power-of-two length: the fast transform of each row in a scratch buffer.
func.func @dft_fast(%x: tensor<3x8x1xf32>) -> tensor<3x8x2xf32> {
  %axis = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %none = "onnx.NoValue"() : () -> none
  %r = "onnx.DFT"(%x, %none, %axis) {onnx_node_name = "dft"} : (tensor<3x8x1xf32>, none, tensor<i64>) -> tensor<3x8x2xf32>
  func.return %r : tensor<3x8x2xf32>
}

// The twiddle tables: cos and -sin of 2 pi j / 8, in double, rounded to float.
// CHECK-LABEL: func.func @dft_fast
// CHECK-SAME:    (%[[X:.*]]: memref<3x8x1xf32>, %[[Y:.*]]: memref<3x8x2xf32>)
// CHECK:         %[[COS:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:    %[[SIN:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%[[COS]], %[[SIN]] : memref<8xf32>, memref<8xf32>)
// CHECK:           math.cos %{{.*}} : f64
// CHECK-NEXT:      %[[S:.*]] = math.sin %{{.*}} : f64
// CHECK-NEXT:      arith.negf %[[S]] : f64
// CHECK:         %[[W:.*]] = memref.alloc() : memref<8x2xf32>
// Each row: the buffer cleared, the samples at bit-reversed places (3 bits),
// 3 stages of butterflies, then the bins in order.
// CHECK:         scf.for %[[ROW:[^ ]+]] =
// CHECK:           scf.for
// CHECK-NEXT:        memref.store %{{.*}}, %[[W]]
// CHECK:           scf.for %[[N:[^ ]+]] =
// CHECK:             %[[V:.*]] = memref.load %[[X]][%[[ROW]], %[[N]], %{{.*}}] : memref<3x8x1xf32>
// CHECK:             %{{.*}}, %[[AT:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[N]], %{{.*}} = %{{.*}}) -> (index, index) {
// CHECK:               arith.shrui
// CHECK:             memref.store %[[V]], %[[W]][%[[AT]], %{{.*}}] : memref<8x2xf32>
// CHECK:           scf.for {{.*}} iter_args(%[[HALF:.*]] = %{{.*}}) -> (index) {
// CHECK:             %[[SIZE:.*]] = arith.addi %[[HALF]], %[[HALF]] : index
// CHECK:             arith.divui %{{.*}}, %[[SIZE]] : index
// CHECK:               scf.for %{{.*}} = %{{.*}} to %[[HALF]]
// CHECK:                 memref.load %[[COS]]
// CHECK:                 memref.load %[[SIN]]
// CHECK-COUNT-4:         memref.store %{{.*}}, %[[W]]
// CHECK:           scf.for %[[K:[^ ]+]] =
// CHECK:             %[[RE:.*]] = memref.load %[[W]][%[[K]], %{{.*}}] : memref<8x2xf32>
// CHECK:             %[[IM:.*]] = memref.load %[[W]][%[[K]], %{{.*}}] : memref<8x2xf32>
// CHECK:             memref.store %[[RE]], %[[Y]][%[[ROW]], %[[K]], %{{.*}}] : memref<3x8x2xf32>
// CHECK:             memref.store %[[IM]], %[[Y]][%[[ROW]], %[[K]], %{{.*}}] : memref<3x8x2xf32>

// -----

// Another length: each bin is a direct sum over the samples, carrying
// k n mod L. IRFFT: bins 0 and L / 2 weighed once, the others twice; the
// real part, divided by L.
func.func @dft_direct_irfft(%x: tensor<3x6x2xf32>) -> tensor<3x10x1xf32> {
  %axis = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %none = "onnx.NoValue"() : () -> none
  %r = "onnx.DFT"(%x, %none, %axis) {onnx_node_name = "dft", inverse = 1 : si64, onesided = 1 : si64} : (tensor<3x6x2xf32>, none, tensor<i64>) -> tensor<3x10x1xf32>
  func.return %r : tensor<3x10x1xf32>
}

// CHECK-LABEL: func.func @dft_direct_irfft
// CHECK-SAME:    (%[[X:.*]]: memref<3x6x2xf32>, %[[Y:.*]]: memref<3x10x1xf32>)
// CHECK:         %[[COS:.*]] = memref.alloc() : memref<10xf32>
// CHECK-NEXT:    %[[SIN:.*]] = memref.alloc() : memref<10xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         %[[SCALE:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK:         scf.for %[[ROW:[^ ]+]] =
// CHECK:           scf.for %[[K:[^ ]+]] =
// CHECK:             %[[RE:.*]], %{{.*}}, %{{.*}} = scf.for %[[N:[^ ]+]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[J:.*]] = %{{.*}}) -> (f32, f32, index) {
// CHECK:               memref.load %[[X]][%[[ROW]], %[[N]], %{{.*}}] : memref<3x6x2xf32>
// CHECK:               %[[ONCE:.*]] = arith.ori
// CHECK:               arith.select %[[ONCE]], %{{.*}}, %{{.*}} : f32
// CHECK:               memref.load %[[COS]][%[[J]]] : memref<10xf32>
// CHECK-NEXT:          memref.load %[[SIN]][%[[J]]] : memref<10xf32>
// CHECK:               %[[NEXT:.*]] = arith.addi %[[J]], %[[K]] : index
// CHECK:               arith.cmpi sge, %[[NEXT]], %{{.*}} : index
// CHECK:             %[[SCALED:.*]] = arith.mulf %[[RE]], %[[SCALE]] : f32
// CHECK:             memref.store %[[SCALED]], %[[Y]][%[[ROW]], %[[K]], %{{.*}}] : memref<3x10x1xf32>

// -----

// An axis known only at run time: one transform per axis that gives the
// result's shape, chosen with scf.if.

func.func @dft_runtime_axis(%x: tensor<4x4x1xf32>, %a: tensor<i64>) -> tensor<4x4x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  %r = "onnx.DFT"(%x, %none, %a) {onnx_node_name = "dft"} : (tensor<4x4x1xf32>, none, tensor<i64>) -> tensor<4x4x2xf32>
  func.return %r : tensor<4x4x2xf32>
}

// CHECK-LABEL: func.func @dft_runtime_axis
// CHECK:         onnxc.check %{{.*}}, "DFT dft: axis gives the output's shape"
// CHECK:         scf.if %{{.*}} {
// CHECK:           scf.for
// CHECK:         scf.if %{{.*}} {
// CHECK:           scf.for
