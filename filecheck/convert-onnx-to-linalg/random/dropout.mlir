// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Inference: the output is the input (copied to the graph output here), the
// mask all true.
func.func @dropout(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  %n = "onnx.NoValue"() : () -> none
  %y, %mask = "onnx.Dropout"(%x, %n, %n) {onnx_node_name = "d"} : (tensor<2x3xf32>, none, none) -> (tensor<2x3xf32>, tensor<2x3xi1>)
  func.return %y, %mask : tensor<2x3xf32>, tensor<2x3xi1>
}

// CHECK-LABEL: func.func @dropout(%x: memref<2x3xf32>, %out0: memref<2x3xf32>, %out1: memref<2x3xi1>)
// CHECK:         %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:    linalg.fill {onnxc.comment = "Dropout d"} ins(%[[TRUE]] : i1) outs(%out1 : memref<2x3xi1>)
// CHECK:         linalg.generic {{.*}} ins(%x : memref<2x3xf32>) outs(%out0 : memref<2x3xf32>) attrs =  {onnxc.comment = "copy to graph output"}

// -----

// Training mode (a constant true flag): mask = u >= ratio, output = mask ?
// x / (1 - ratio) : 0, the ratio loaded at run time.
func.func @dropout_training(%x: tensor<2x3xf32>, %ratio: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  %t = "onnx.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %y, %mask = "onnx.Dropout"(%x, %ratio, %t) <{seed = 5 : i64}> {onnx_node_name = "d"} : (tensor<2x3xf32>, tensor<f32>, tensor<i1>) -> (tensor<2x3xf32>, tensor<2x3xi1>)
  func.return %y, %mask : tensor<2x3xf32>, tensor<2x3xi1>
}

// CHECK-LABEL: func.func @dropout_training(%x: memref<2x3xf32>, %ratio: memref<f32>, %out0: memref<2x3xf32>, %out1: memref<2x3xi1>)
// CHECK:         %[[RATIO:.*]] = memref.load %ratio[] : memref<f32>
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant {{.*}} 1.000000e+00 : f32
// CHECK-NEXT:    %[[KEEP:.*]] = arith.subf %[[ONE]], %[[RATIO]] {{.*}} : f32
// CHECK-NEXT:    %[[SCALE:.*]] = arith.divf %[[ONE]], %[[KEEP]] {{.*}} : f32
// CHECK-NEXT:    linalg.generic {{.*}} ins(%x : memref<2x3xf32>) outs(%out0, %out1 : memref<2x3xf32>, memref<2x3xi1>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %{{.*}}: f32, %{{.*}}: i1):
// CHECK:           %[[KEY:.*]] = arith.constant 4617315517961601024 : i64
// CHECK-NEXT:      %[[U:.*]] = onnxc.uniform %[[KEY]], %{{.*}} : f32
// CHECK-NEXT:      %[[KEPT:.*]] = arith.cmpf oge, %[[U]], %[[RATIO]] : f32
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[X]], %[[SCALE]] : f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[V:.*]] = arith.select %[[KEPT]], %[[SCALED]], %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[V]], %[[KEPT]] : f32, i1

// -----

// training_mode known only at run time: false keeps everything, unscaled.
func.func @dropout_run_time_training(%x: tensor<4xf64>, %t: tensor<i1>) -> tensor<4xf64> {
  %n = "onnx.NoValue"() : () -> none
  %y, %mask = "onnx.Dropout"(%x, %n, %t) {onnx_node_name = "d"} : (tensor<4xf64>, none, tensor<i1>) -> (tensor<4xf64>, none)
  func.return %y : tensor<4xf64>
}

// CHECK-LABEL: func.func @dropout_run_time_training(%x: memref<4xf64>, %t: memref<i1>, %out0: memref<4xf64>)
// CHECK:         %[[TRAINING:.*]] = memref.load %t[] : memref<i1>
// CHECK:         %[[HALF:.*]] = arith.constant {{.*}} 5.000000e-01 : f64
// CHECK:         %[[SCALE:.*]] = arith.select %[[TRAINING]], %{{.*}}, %{{.*}} {{.*}} : f64
// CHECK:         %[[IDLE:.*]] = arith.xori %[[TRAINING]], %{{.*}} {{.*}} : i1
// CHECK:         linalg.generic {{.*}} ins(%x : memref<4xf64>) outs(%out0 : memref<4xf64>)
// CHECK:           %[[U:.*]] = onnxc.uniform %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:      %[[KEPT:.*]] = arith.cmpf oge, %[[U]], %[[HALF]] : f64
// CHECK-NEXT:      %[[KEEP:.*]] = arith.ori %[[KEPT]], %[[IDLE]] : i1
// CHECK:           linalg.yield %{{.*}} : f64
