// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @dft(%x: tensor<3x8x1xf32>, %n: tensor<i64>, %a: tensor<i64>) -> tensor<3x8x2xf32> {
  %axis = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %none = "onnx.NoValue"() : () -> none
  %r = "onnx.DFT"(%x, %none, %axis) {onnx_node_name = "dft"} : (tensor<3x8x1xf32>, none, tensor<i64>) -> tensor<3x8x2xf32>
  func.return %r : tensor<3x8x2xf32>
}

// The twiddle tables: cos and sin of 2 pi j / 8, in double, rounded to float.
// CHECK-LABEL: func.func @dft
// CHECK-SAME:    (%[[X:.*]]: memref<3x8x1xf32>, %{{.*}}, %{{.*}}, %[[Y:.*]]: memref<3x8x2xf32>)
// CHECK:         %[[COS:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:    %[[SIN:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%[[COS]], %[[SIN]] : memref<8xf32>, memref<8xf32>)
// CHECK:           math.cos %{{.*}} : f64
// CHECK-NEXT:      math.sin %{{.*}} : f64
// Each bin k of each row sums x[n] (cos - i sin)(2 pi k n / 8), carrying k n mod 8.
// CHECK:         scf.for %[[ROW:[^ ]+]] =
// CHECK:           scf.for %[[K:[^ ]+]] =
// CHECK:             %[[RE:.*]], %[[IM:.*]], %{{.*}} = scf.for %[[N:[^ ]+]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[J:.*]] = %{{.*}}) -> (f32, f32, index) {
// CHECK:               memref.load %[[X]][%[[ROW]], %[[N]], %{{.*}}] : memref<3x8x1xf32>
// CHECK-NEXT:          memref.load %[[COS]][%[[J]]] : memref<8xf32>
// CHECK-NEXT:          memref.load %[[SIN]][%[[J]]] : memref<8xf32>
// CHECK:               %[[NEXT:.*]] = arith.addi %[[J]], %[[K]] : index
// CHECK:               arith.cmpi sge, %[[NEXT]], %{{.*}} : index
// CHECK:             memref.store %[[RE]], %[[Y]][%[[ROW]], %[[K]], %{{.*}}] : memref<3x8x2xf32>
// CHECK:             memref.store %[[IM]], %[[Y]][%[[ROW]], %[[K]], %{{.*}}] : memref<3x8x2xf32>

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
