// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// Over the default axes [0, 2, 3]: statistics per channel, and the factor
// 1 / (sqrt(variance) + 1e-9), the spec's function body's epsilon.
func.func @mvn(%x: tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32> {
  %y = "onnx.MeanVarianceNormalization"(%x) {onnx_node_name = "mvn"} : (tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32>
  func.return %y : tensor<2x3x2x2xf32>
}

// CHECK-LABEL: func.func @mvn
// CHECK:         memref.alloc() : memref<3xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
// CHECK:         %[[ROOT:.*]] = math.sqrt %{{.*}} : f32
// CHECK-NEXT:    %[[EPS:.*]] = arith.constant 1.000000e-09 : f32
// CHECK-NEXT:    arith.addf %[[ROOT]], %[[EPS]] : f32
