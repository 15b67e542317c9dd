// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @div(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Div"(%a, %b) {onnx_node_name = "div"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @div(
// CHECK-SAME:      %[[A:[^:]*]]: memref<2x3xf32>, %[[B:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<2x3xf32>, memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = arith.divf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

// Integer division picks its operation from the element kind: divsi on
// signed (signless) integers, divui on unsigned ones.

func.func @div_int(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %r = "onnx.Div"(%a, %b) {onnx_node_name = "div"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return %r : tensor<4xi32>
}

// CHECK-LABEL: func.func @div_int(
// CHECK:         ^bb0(%[[X:[^:]*]]: i32, %[[Y:[^:]*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[R:.*]] = arith.divsi %[[X]], %[[Y]] : i32

// -----

func.func @div_uint(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %r = "onnx.Div"(%a, %b) {onnx_node_name = "div"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  func.return %r : tensor<4xui8>
}

// CHECK-LABEL: func.func @div_uint(
// CHECK:         ^bb0(%[[X:[^:]*]]: ui8, %[[Y:[^:]*]]: ui8, %{{.*}}: ui8):
// CHECK-NEXT:      %[[R:.*]] = arith.divui %[[X]], %[[Y]] : ui8
