// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// A NaN replaced_value_float replaces every NaN (x != x).

// CHECK-LABEL: func.func @imputer(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: f32, %[[I:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[NAN]], %[[I]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

func.func @imputer(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx_ml.Imputer"(%x) <{imputed_value_floats = array<f32: 1.0, 2.0, 3.0>, replaced_value_float = 0x7FC00000 : f32}> {onnx_node_name = "imputer"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
