// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// (X - offset) * scale in float, each parameter per column or one value.

// CHECK-LABEL: func.func @scaler(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: i64, %[[OFFSET:.*]]: f32, %[[SCALE:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[F:.*]] = arith.sitofp %[[X]] : i64 to f32
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[F]], %[[OFFSET]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[D]], %[[SCALE]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

func.func @scaler(%x: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %y = "onnx_ml.Scaler"(%x) <{offset = array<f32: 1.0, 2.0, 3.0>, scale = array<f32: 0.5>}> {onnx_node_name = "scaler"} : (tensor<2x3xi64>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
