// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Each window sums |x|^p over its taps inside X, then takes the p-th root
// (p = 2: squares and a square root).
func.func @lp_pool(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  %y = "onnx.LpPool"(%x) <{kernel_shape = array<i64: 2, 2>, p = 2 : i64}> {onnx_node_name = "lp"} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  func.return %y : tensor<1x1x3x3xf32>
}

// CHECK-LABEL: func.func @lp_pool
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:           math.sqrt

// -----

// GlobalLpPool with p = 3: |x|^3 summed over the spatial axes, then ^(1/3).
func.func @global_lp_pool(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32> {
  %y = "onnx.GlobalLpPool"(%x) <{p = 3 : i64}> {onnx_node_name = "glp"} : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
  func.return %y : tensor<1x2x1x1xf32>
}

// CHECK-LABEL: func.func @global_lp_pool
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK:           math.absf
// CHECK:           math.powf
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK:           %[[THIRD:.*]] = arith.constant 0.333
// CHECK-NEXT:      math.powf %{{.*}}, %[[THIRD]]
