// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @thresholded_relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.ThresholdedRelu"(%x) {onnx_node_name = "thresholded_relu"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @thresholded_relu(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[CMPF:.*]] = arith.cmpf ogt, %[[X]], %[[C]] : f32
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[SELECT:.*]] = arith.select %[[CMPF]], %[[X]], %[[C2]] : f32
// CHECK-NEXT:      linalg.yield %[[SELECT]] : f32
