// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// A 1x1 kernel of one pixel (a Gemm of one row, 40 outputs in 3 blocks of
// 16 lanes, the last with 8): its register blocks span output blocks, not
// pixels, so each lane loop updates three independent accumulators with
// the one input value of the channel.
func.func @gemv(%x: tensor<1x1x1x1x32xf32>) -> tensor<1x3x1x1x16xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<3x32x1x1x16xf32>}> {onnx_node_name = "w"} : () -> tensor<3x32x1x1x16xf32>
  %none = "onnx.NoValue"() : () -> none
  %y = "kernel.conv"(%x, %w, %none, %none) <{strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, kernel_shape = array<i64: 1, 1>, group = 1 : i64, pixels = 8 : i64}> {onnx_node_name = "gemm"} : (tensor<1x1x1x1x32xf32>, tensor<3x32x1x1x16xf32>, none, none) -> tensor<1x3x1x1x16xf32>
  func.return %y : tensor<1x3x1x1x16xf32>
}

// CHECK-LABEL: func.func @gemv
// CHECK:         %[[A0:.*]] = memref.alloca() {{.*}}: memref<16xf32>
// CHECK-NEXT:    %[[A1:.*]] = memref.alloca() {{.*}}: memref<16xf32>
// CHECK-NEXT:    %[[A2:.*]] = memref.alloca() {{.*}}: memref<16xf32>
// CHECK-NOT:     memref.alloca
// CHECK:           %[[X:.*]] = memref.load %x[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[CI:.*]]] :
// CHECK:           scf.for %[[V:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             %[[W0:.*]] = memref.load %{{.*}}[%{{.*}}, %[[CI]], %{{.*}}, %{{.*}}, %[[V]]] : memref<3x32x1x1x16xf32>
// CHECK-NEXT:        %[[OLD0:.*]] = memref.load %[[A0]][%[[V]]]
// CHECK-NEXT:        %[[P0:.*]] = arith.mulf %[[X]], %[[W0]] : f32
// CHECK-NEXT:        %{{.*}} = arith.addf %[[OLD0]], %[[P0]] : f32
// CHECK:             memref.load %[[A1]][%[[V]]]
// CHECK:             memref.load %[[A2]][%[[V]]]
