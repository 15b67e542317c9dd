// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @leaky_relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.LeakyRelu"(%x) <{alpha = 2.000000e-01 : f32}> {onnx_node_name = "leaky_relu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @leaky_relu(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ALPHA:.*]] = arith.constant 2.000000e-01 : f32
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[X]], %[[ALPHA]] : f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[NEGATIVE:.*]] = arith.cmpf olt, %[[X]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[NEGATIVE]], %[[SCALED]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @leaky_relu_default(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.LeakyRelu"(%x) {onnx_node_name = "leaky_relu_default"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @leaky_relu_default(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ALPHA:.*]] = arith.constant 1.000000e-02 : f32
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[X]], %[[ALPHA]] : f32
