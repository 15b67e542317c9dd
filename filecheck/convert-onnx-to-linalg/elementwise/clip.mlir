// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @clip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %lo = "onnx.Constant"() <{value = dense<-1.000000e+00> : tensor<f32>}> {onnx_node_name = "lo"} : () -> tensor<f32>
  %hi = "onnx.Constant"() <{value = dense<6.000000e+00> : tensor<f32>}> {onnx_node_name = "hi"} : () -> tensor<f32>
  %r = "onnx.Clip"(%x, %lo, %hi) {onnx_node_name = "clip"} : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @clip(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[LO:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:      %[[LOW:.*]] = arith.maximumf %[[X]], %[[LO]] : f32
// CHECK-NEXT:      %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT:      %[[R:.*]] = arith.minimumf %[[LOW]], %[[HI]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @clip_max_only(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %lo = "onnx.NoValue"() : () -> none
  %hi = "onnx.Constant"() <{value = dense<6.000000e+00> : tensor<f32>}> {onnx_node_name = "hi"} : () -> tensor<f32>
  %r = "onnx.Clip"(%x, %lo, %hi) {onnx_node_name = "clip_max_only"} : (tensor<2x3xf32>, none, tensor<f32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @clip_max_only(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT:      %[[R:.*]] = arith.minimumf %[[X]], %[[HI]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @clip_no_bounds(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %lo = "onnx.NoValue"() : () -> none
  %hi = "onnx.NoValue"() : () -> none
  %r = "onnx.Clip"(%x, %lo, %hi) {onnx_node_name = "clip_no_bounds"} : (tensor<2x3xf32>, none, none) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @clip_no_bounds(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[X]] : f32
