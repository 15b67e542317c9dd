// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @mean(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Mean"(%a, %b) {onnx_node_name = "mean"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @mean(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ADDF:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[C:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[DIVF:.*]] = arith.divf %[[ADDF]], %[[C]] : f32
// CHECK-NEXT:      linalg.yield %[[DIVF]] : f32
