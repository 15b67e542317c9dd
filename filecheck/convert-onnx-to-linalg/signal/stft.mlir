// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @stft(%x: tensor<1x32x1xf32>, %w: tensor<8xf32>) -> tensor<1x7x5x2xf32> {
  %step = "onnx.Constant"() <{value = dense<4> : tensor<i64>}> : () -> tensor<i64>
  %none = "onnx.NoValue"() : () -> none
  %r = "onnx.STFT"(%x, %step, %w, %none) {onnx_node_name = "stft"} : (tensor<1x32x1xf32>, tensor<i64>, tensor<8xf32>, none) -> tensor<1x7x5x2xf32>
  func.return %r : tensor<1x7x5x2xf32>
}

// Frames of 8 samples every 4, each sample times the window, transformed
// fast in a scratch buffer; 5 one-sided bins.
// CHECK-LABEL: func.func @stft
// CHECK-SAME:    (%[[X:.*]]: memref<1x32x1xf32>, %[[W:.*]]: memref<8xf32>, %[[Y:.*]]: memref<1x7x5x2xf32>)
// CHECK:         %[[COS:.*]] = memref.alloc() : memref<8xf32>
// CHECK:         %[[S:.*]] = memref.alloc() : memref<8x2xf32>
// CHECK:         scf.for %[[B:[^ ]+]] =
// CHECK:           scf.for %[[F:[^ ]+]] =
// CHECK:             %[[START:.*]] = arith.muli %[[F]], %{{.*}} : index
// CHECK:             scf.for
// CHECK-NEXT:          memref.store %{{.*}}, %[[S]]
// CHECK:             scf.for %[[N:[^ ]+]] =
// CHECK-NEXT:          %[[AT:.*]] = arith.addi %[[START]], %[[N]] : index
// CHECK:               %[[V:.*]] = memref.load %[[X]][%[[B]], %[[AT]], %{{.*}}] : memref<1x32x1xf32>
// CHECK-NEXT:          %[[WN:.*]] = memref.load %[[W]][%[[N]]] : memref<8xf32>
// CHECK-NEXT:          %[[P:.*]] = arith.mulf %[[V]], %[[WN]] : f32
// CHECK:               memref.store %[[P]], %[[S]]
// CHECK:             %[[FIVE:.*]] = arith.constant 5 : index
// CHECK:             scf.for %[[K:[^ ]+]] = %{{.*}} to %[[FIVE]]
// CHECK:               memref.load %[[S]][%[[K]], %{{.*}}] : memref<8x2xf32>
// CHECK:               memref.store %{{.*}}, %[[Y]][%[[B]], %[[F]], %[[K]], %{{.*}}] : memref<1x7x5x2xf32>

// -----

// Frames of 6: the direct sum of each bin.
func.func @stft_direct(%x: tensor<1x20x2xf32>) -> tensor<1x8x6x2xf32> {
  %step = "onnx.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %length = "onnx.Constant"() <{value = dense<6> : tensor<i64>}> : () -> tensor<i64>
  %none = "onnx.NoValue"() : () -> none
  %r = "onnx.STFT"(%x, %step, %none, %length) {onnx_node_name = "stft", onesided = 0 : si64} : (tensor<1x20x2xf32>, tensor<i64>, none, tensor<i64>) -> tensor<1x8x6x2xf32>
  func.return %r : tensor<1x8x6x2xf32>
}

// CHECK-LABEL: func.func @stft_direct
// CHECK-SAME:    (%[[X:.*]]: memref<1x20x2xf32>, %[[Y:.*]]: memref<1x8x6x2xf32>)
// CHECK-NOT:     memref.alloc() : memref<6x2xf32>
// CHECK:         scf.for %[[B:[^ ]+]] =
// CHECK:           scf.for %[[F:[^ ]+]] =
// CHECK:             %[[START:.*]] = arith.muli %[[F]], %{{.*}} : index
// CHECK:             scf.for %[[K:[^ ]+]] =
// CHECK:               %[[RE:.*]], %[[IM:.*]], %{{.*}} = scf.for %[[N:[^ ]+]] = {{.*}} -> (f32, f32, index) {
// CHECK-NEXT:            %[[AT:.*]] = arith.addi %[[START]], %[[N]] : index
// CHECK:                 memref.load %[[X]][%[[B]], %[[AT]], %{{.*}}] : memref<1x20x2xf32>
// CHECK:               memref.store %[[RE]], %[[Y]][%[[B]], %[[F]], %[[K]], %{{.*}}] : memref<1x8x6x2xf32>
// CHECK:               memref.store %[[IM]], %[[Y]][%[[B]], %[[F]], %[[K]], %{{.*}}] : memref<1x8x6x2xf32>
