// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @pow(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Pow"(%a, %b) {onnx_node_name = "pow"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @pow(
// CHECK-SAME:      %[[A:[^:]*]]: memref<2x3xf32>, %[[B:[^:]*]]: memref<3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<2x3xf32>, memref<3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = math.powf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

func.func @pow_integer_exponent(%a: tensor<2x3xf32>, %b: tensor<3xi64>) -> tensor<2x3xf32> {
  %r = "onnx.Pow"(%a, %b) {onnx_node_name = "pow_integer_exponent"} : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @pow_integer_exponent(
// CHECK-SAME:      %[[A:[^:]*]]: memref<2x3xf32>, %[[B:[^:]*]]: memref<3xi64>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : memref<2x3xf32>, memref<3xi64>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:      %[[E:.*]] = arith.sitofp %[[Y]] : i64 to f32
// CHECK-NEXT:      %[[R:.*]] = math.powf %[[X]], %[[E]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

// A constant exponent 2 (one element, here an integer) squares the base: the
// exponent is not read.

func.func @pow_square(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %two = "onnx.Constant"() <{value = dense<2> : tensor<1xi64>}> {onnx_node_name = "two"} : () -> tensor<1xi64>
  %r = "onnx.Pow"(%a, %two) {onnx_node_name = "pow_square"} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @pow_square(
// CHECK-SAME:      %[[A:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[A]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK-NOT:     math.powf

// -----

// Any other constant exponent, or one of more elements, stays a powf.

func.func @pow_cube(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %three = "onnx.Constant"() <{value = dense<3.0> : tensor<f32>}> {onnx_node_name = "three"} : () -> tensor<f32>
  %r = "onnx.Pow"(%a, %three) {onnx_node_name = "pow_cube"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @pow_cube(
// CHECK:           math.powf
