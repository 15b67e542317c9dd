// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @p_relu(%x: tensor<2x3xf32>, %slope: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.PRelu"(%x, %slope) {onnx_node_name = "p_relu"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @p_relu(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[CMPF:.*]] = arith.cmpf olt, %[[X]], %[[C]] : f32
// CHECK-NEXT:      %[[MULF:.*]] = arith.mulf %[[Y]], %[[X]] : f32
// CHECK-NEXT:      %[[SELECT:.*]] = arith.select %[[CMPF]], %[[MULF]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[SELECT]] : f32

// -----

func.func @p_relu_i32(%x: tensor<2x3xi32>, %slope: tensor<1xi32>) -> tensor<2x3xi32> {
  %r = "onnx.PRelu"(%x, %slope) {onnx_node_name = "p_relu_i32"} : (tensor<2x3xi32>, tensor<1xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @p_relu_i32(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: i32, %[[Y:[^:]*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[CMPI:.*]] = arith.cmpi slt, %[[X]], %[[C]] : i32
// CHECK-NEXT:      %[[MULI:.*]] = arith.muli %[[Y]], %[[X]] : i32
// CHECK-NEXT:      %[[SELECT:.*]] = arith.select %[[CMPI]], %[[MULI]], %[[X]] : i32
// CHECK-NEXT:      linalg.yield %[[SELECT]] : i32
