// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @max_variadic(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Max"(%a, %b, %c) {onnx_node_name = "max"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @max_variadic(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %[[Z:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[XY:.*]] = arith.maximumf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.maximumf %[[XY]], %[[Z]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @max_single(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Max"(%a) {onnx_node_name = "max"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @max_single(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[X]] : f32
