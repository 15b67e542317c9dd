// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Static sizes: axis 0 is cropped from 5 to 2 (starting at 1), axis 1
// padded from 3 to 6 (1 before): a zero fill and a copy through maps.
// CHECK-LABEL: func.func @crop_and_pad(
// CHECK-SAME:      %[[X:.*]]: memref<5x3x2xf32>, %[[OUT:.*]]: memref<2x6x2xf32>)
// CHECK:         linalg.fill {{.*}} outs(%[[OUT]] : memref<2x6x2xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> ((d0 + 1), d1, d2)>, affine_map<(d0, d1, d2) -> (d0, (d1 + 1), d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]] : memref<5x3x2xf32>) outs(%[[OUT]] : memref<2x6x2xf32>)

func.func @crop_and_pad(%x: tensor<5x3x2xf32>) -> tensor<2x6x2xf32> {
  %s = "onnx.Constant"() <{value = dense<[2, 6]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %r = "onnx.CenterCropPad"(%x, %s) <{axes = array<i64: 0, -2>}> {onnx_node_name = "ccp"} : (tensor<5x3x2xf32>, tensor<2xi64>) -> tensor<2x6x2xf32>
  func.return %r : tensor<2x6x2xf32>
}

// -----

// Sizes read at run time: checked not negative; the body reads the input
// where the output position maps inside it, else gives 0.
// CHECK-LABEL: func.func @runtime(
// CHECK-SAME:      %[[W:.*]]: index, %[[X:.*]]: memref<4x?xi8>, %[[S:.*]]: memref<2xi64>, %[[OUT:.*]]: memref<?x?xi8>)
// CHECK:         %[[H:.*]] = memref.load %[[S]][%{{.*}}] : memref<2xi64>
// CHECK:         onnxc.check %{{.*}}, "CenterCropPad ccp: shape >= 0"
// CHECK:         onnxc.check %{{.*}}, "CenterCropPad ccp: shape >= 0"
// CHECK:         %[[Y:.*]] = onnxc.output %[[OUT]]
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%[[Y]] : memref<?x?xi8>)
// CHECK:           %[[INSIDE:.*]] = arith.andi
// CHECK:           scf.if %[[INSIDE]] -> (i8) {
// CHECK-NEXT:        memref.load
// CHECK:           } else {
// CHECK-NEXT:        arith.constant 0 : i8

func.func @runtime(%x: tensor<4x?xi8, ["W"]>, %s: tensor<2xi64>) -> tensor<?x?xi8, ["A", "B"]> attributes {onnxc.dims = ["W"], onnxc.input_names = ["x", "s"], onnxc.output_names = ["y"]} {
  %r = "onnx.CenterCropPad"(%x, %s) {onnx_node_name = "ccp"} : (tensor<4x?xi8, ["W"]>, tensor<2xi64>) -> tensor<?x?xi8, ["A", "B"]>
  func.return %r : tensor<?x?xi8, ["A", "B"]>
}
