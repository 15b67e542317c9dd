// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @col2im(%x: tensor<1x8x6xf32>) -> tensor<1x2x3x3xf32> {
  %image = "onnx.Constant"() <{value = dense<[3, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %block = "onnx.Constant"() <{value = dense<[2, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %r = "onnx.Col2Im"(%x, %image, %block) <{pads = array<i64: 1, 0, 0, 1>, strides = array<i64: 1, 2>}> {onnx_node_name = "fold"} : (tensor<1x8x6xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x2x3x3xf32>
  func.return %r : tensor<1x2x3x3xf32>
}

// The output starts at zero; loops n, c and the 2x2 taps, then the 3x2
// blocks, each loop over blocks clipped to those whose tap lands inside the
// image (no test per element), scatter each column element into the image.
// CHECK-LABEL: func.func @col2im
// CHECK:         linalg.fill {onnxc.comment = "Col2Im fold"}
// CHECK:         scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step
// CHECK:             scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step
// CHECK:               scf.for %[[K1:.*]] = %{{.*}} to %{{.*}} step
// CHECK:                 arith.ceildivsi
// CHECK:                 %[[LO1:.*]] = arith.maxsi
// CHECK:                 arith.floordivsi
// CHECK:                 %[[HI1:.*]] = arith.maxsi %[[LO1]], %{{.*}} : index
// CHECK:                 scf.for %[[L0:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:              arith.constant 1 : index
// CHECK-NEXT:              scf.for %[[L1:.*]] = %[[LO1]] to %[[HI1]] step
// CHECK-NOT:                 scf.if
// CHECK:                     %[[S1:.*]] = arith.muli %[[L1]], %{{.*}} : index
// CHECK:                     arith.addi %[[S1]], %[[K1]] : index
// CHECK:                     %[[V:.*]] = memref.load %{{.*}}[%[[N]], %{{.*}}, %{{.*}}] : memref<1x8x6xf32>
// CHECK:                     %[[OLD:.*]] = memref.load %{{.*}}[%[[N]], %[[C]], %{{.*}}, %{{.*}}] : memref<1x2x3x3xf32>
// CHECK:                     %[[SUM:.*]] = arith.addf %[[OLD]], %[[V]] : f32
// CHECK:                     memref.store %[[SUM]], %{{.*}}[%[[N]], %[[C]], %{{.*}}, %{{.*}}] : memref<1x2x3x3xf32>

// -----

func.func @col2im_run_time_shapes(%x: tensor<1x4x?xf32, ["L"]>, %image: tensor<2xi64>, %block: tensor<2xi64>) -> tensor<1x?x?x?xf32, ["C", "H", "W"]> attributes {onnxc.dims = ["L"], onnxc.input_names = ["x", "image", "block"], onnxc.output_names = ["y"]} {
  %r = "onnx.Col2Im"(%x, %image, %block) {onnx_node_name = "fold"} : (tensor<1x4x?xf32, ["L"]>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x?x?x?xf32, ["C", "H", "W"]>
  func.return %r : tensor<1x?x?x?xf32, ["C", "H", "W"]>
}

// Sizes given at run time are loaded and checked.
// CHECK-LABEL: func.func @col2im_run_time_shapes
// CHECK:         memref.load %{{.*}}[%{{.*}}] : memref<2xi64>
// CHECK:         onnxc.check %{{.*}}, "Col2Im fold: image_shape[0] >= 0"
// CHECK:         onnxc.check %{{.*}}, "Col2Im fold: block_shape[0] >= 1"
// CHECK:         onnxc.check %{{.*}}, "Col2Im fold: blocks along axis 0 >= 1"
// CHECK:         onnxc.check %{{.*}}, "Col2Im fold: C * K rows"
// CHECK:         onnxc.check %{{.*}}, "Col2Im fold: L is the number of blocks"
