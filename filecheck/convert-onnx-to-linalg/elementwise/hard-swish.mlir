// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @hard_swish(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.HardSwish"(%x) {onnx_node_name = "hard_swish"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @hard_swish(
// CHECK-SAME:      %[[IN:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[IN]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ALPHA:.*]] = arith.constant 0.166666672 : f32
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %[[X]], %[[ALPHA]] : f32
// CHECK-NEXT:      %[[BETA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[SHIFTED:.*]] = arith.addf %[[SCALED]], %[[BETA]] : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[LOW:.*]] = arith.minimumf %[[SHIFTED]], %[[ONE]] : f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[GATE:.*]] = arith.maximumf %[[LOW]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[X]], %[[GATE]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
