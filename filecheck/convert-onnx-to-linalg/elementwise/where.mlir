// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @where(%c: tensor<2x1xi1>, %x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Where"(%c, %x, %y) {onnx_node_name = "where"} : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @where(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: i1, %[[Y:[^:]*]]: f32, %[[Z:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[SELECT:.*]] = arith.select %[[X]], %[[Y]], %[[Z]] : f32
// CHECK-NEXT:      linalg.yield %[[SELECT]] : f32
