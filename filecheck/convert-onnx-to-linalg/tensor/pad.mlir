// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @pad_constant(%x: tensor<2x3xf32>) -> tensor<3x5xf32> {
  %p = "onnx.Constant"() <{value = dense<[1, 0, 0, 2]> : tensor<4xi64>}> {onnx_node_name = "pads"} : () -> tensor<4xi64>
  %v = "onnx.Constant"() <{value = dense<1.5> : tensor<f32>}> {onnx_node_name = "value"} : () -> tensor<f32>
  %n = "onnx.NoValue"() : () -> none
  %r = "onnx.Pad"(%x, %p, %v, %n) {onnx_node_name = "pad"} : (tensor<2x3xf32>, tensor<4xi64>, tensor<f32>, none) -> tensor<3x5xf32>
  func.return %r : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @pad_constant
// CHECK-SAME:    (%[[X:.*]]: memref<2x3xf32>, %[[Y:.*]]: memref<3x5xf32>)
// CHECK:         %[[V:.*]] = arith.constant 1.500000e+00 : f32
// CHECK-NEXT:    linalg.fill {onnxc.comment = "Pad pad"} ins(%[[V]] : f32) outs(%[[Y]] : memref<3x5xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ((d0 + 1), (d1 + 0))>], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : memref<2x3xf32>) outs(%[[Y]] : memref<3x5xf32>)

// -----

func.func @pad_reflect(%x: tensor<4xf32>) -> tensor<7xf32> {
  %p = "onnx.Constant"() <{value = dense<[2, 1]> : tensor<2xi64>}> {onnx_node_name = "pads"} : () -> tensor<2xi64>
  %n = "onnx.NoValue"() : () -> none
  %r = "onnx.Pad"(%x, %p, %n, %n) <{mode = "reflect"}> {onnx_node_name = "pad"} : (tensor<4xf32>, tensor<2xi64>, none, none) -> tensor<7xf32>
  func.return %r : tensor<7xf32>
}

// CHECK-LABEL: func.func @pad_reflect
// CHECK-SAME:    (%[[X:.*]]: memref<4xf32>, %[[Y:.*]]: memref<7xf32>)
// CHECK-DAG:     %[[BEFORE:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[KEPT:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[PERIOD:.*]] = arith.constant 6 : index
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%[[Y]] : memref<7xf32>)
// CHECK:           %[[O:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[I:.*]] = arith.subi %[[O]], %[[BEFORE]] : index
// CHECK-NEXT:      %[[R:.*]] = arith.remsi %[[I]], %[[PERIOD]] : index
// CHECK:           %[[M:.*]] = arith.select %{{.*}}, %{{.*}}, %[[R]] : index
// CHECK-NEXT:      %[[BEYOND:.*]] = arith.cmpi sge, %[[M]], %[[KEPT]] : index
// CHECK-NEXT:      %[[BACK:.*]] = arith.subi %[[PERIOD]], %[[M]] : index
// CHECK-NEXT:      %[[FOLDED:.*]] = arith.select %[[BEYOND]], %[[BACK]], %[[M]] : index
// CHECK:           memref.load %[[X]][%{{.*}}] : memref<4xf32>

// -----

func.func @pad_constant_run_time(%x: tensor<2x3xi8>, %p: tensor<4xi64>) -> tensor<?x?xi8, ["A", "B"]> attributes {onnxc.input_names = ["x", "p"], onnxc.output_names = ["y"]} {
  %n = "onnx.NoValue"() : () -> none
  %r = "onnx.Pad"(%x, %p, %n, %n) {onnx_node_name = "pad"} : (tensor<2x3xi8>, tensor<4xi64>, none, none) -> tensor<?x?xi8, ["A", "B"]>
  func.return %r : tensor<?x?xi8, ["A", "B"]>
}

// CHECK-LABEL: func.func @pad_constant_run_time
// CHECK:         onnxc.check %{{.*}}, "Pad pad: axis 0 keeps >= 0"
// CHECK:         onnxc.check %{{.*}}, "Pad pad: axis 1 keeps >= 0"
// CHECK:         linalg.generic
// CHECK:           arith.cmpi ult
// CHECK:           arith.cmpi ult
// CHECK:           %[[INSIDE:.*]] = arith.andi
// CHECK:           scf.if %[[INSIDE]] -> (i8) {
// CHECK-NEXT:        %[[E:.*]] = memref.load
// CHECK-NEXT:        scf.yield %[[E]] : i8
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK-NEXT:        scf.yield %[[ZERO]] : i8
