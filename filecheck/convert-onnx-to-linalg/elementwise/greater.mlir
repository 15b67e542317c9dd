// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @greater_f32(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
  %r = "onnx.Greater"(%a, %b) {onnx_node_name = "greater_f32"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @greater_f32(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %{{.*}}: i1):
// CHECK-NEXT:      %[[CMPF:.*]] = arith.cmpf ogt, %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[CMPF]] : i1

// -----

func.func @greater_i8(%a: tensor<2x3xi8>, %b: tensor<3xi8>) -> tensor<2x3xi1> {
  %r = "onnx.Greater"(%a, %b) {onnx_node_name = "greater_i8"} : (tensor<2x3xi8>, tensor<3xi8>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @greater_i8(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: i8, %[[Y:[^:]*]]: i8, %{{.*}}: i1):
// CHECK-NEXT:      %[[CMPI:.*]] = arith.cmpi sgt, %[[X]], %[[Y]] : i8
// CHECK-NEXT:      linalg.yield %[[CMPI]] : i1

// -----

func.func @greater_ui16(%a: tensor<2x3xui16>, %b: tensor<3xui16>) -> tensor<2x3xi1> {
  %r = "onnx.Greater"(%a, %b) {onnx_node_name = "greater_ui16"} : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @greater_ui16(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: ui16, %[[Y:[^:]*]]: ui16, %{{.*}}: i1):
// CHECK-NEXT:      %[[CMPI:.*]] = arith.cmpi ugt, %[[X]], %[[Y]] : ui16
// CHECK-NEXT:      linalg.yield %[[CMPI]] : i1
