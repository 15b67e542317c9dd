// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @is_nan(%x: tensor<2x3xf32>) -> tensor<2x3xi1> {
  %r = "onnx.IsNaN"(%x) {onnx_node_name = "is_nan"} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @is_nan(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: i1):
// CHECK-NEXT:      %[[CMPF:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[CMPF]] : i1
