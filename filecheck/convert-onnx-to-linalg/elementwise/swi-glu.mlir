// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// swish(a, alpha) * b, elementwise over A and B (of the same shape).

func.func @swi_glu(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.SwiGLU"(%a, %b) <{alpha = 5.000000e-01 : f32}> {onnx_node_name = "swiglu"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @swi_glu(
// CHECK-SAME:      %[[A:[^:]*]]: memref<2x3xf32>, %[[B:[^:]*]]: memref<2x3xf32>, %[[Y:[^:]*]]: memref<2x3xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[B]] : memref<2x3xf32>, memref<2x3xf32>) outs(%[[Y]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[G:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ALPHA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[AX:.*]] = arith.mulf %[[ALPHA]], %[[X]] : f32
// CHECK-NEXT:      %[[SIGMOID:.*]] = onnxc.sigmoid %[[AX]] : f32
// CHECK-NEXT:      %[[SWISH:.*]] = arith.mulf %[[X]], %[[SIGMOID]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[SWISH]], %[[G]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
