// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @sum(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Sum"(%a, %b, %c) {onnx_node_name = "sum"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @sum(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %[[Z:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ADDF:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[ADDF2:.*]] = arith.addf %[[ADDF]], %[[Z]] : f32
// CHECK-NEXT:      linalg.yield %[[ADDF2]] : f32
