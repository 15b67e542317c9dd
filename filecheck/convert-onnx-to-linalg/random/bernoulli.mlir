// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// 1 where u < p (u drawn in the probabilities' type), converted to dtype.
func.func @bernoulli(%p: tensor<5xf64>) -> tensor<5xi32> {
  %r = "onnx.Bernoulli"(%p) <{dtype = 6 : i64, seed = 2.0 : f32}> {onnx_node_name = "b"} : (tensor<5xf64>) -> tensor<5xi32>
  func.return %r : tensor<5xi32>
}

// CHECK-LABEL: func.func @bernoulli(%p: memref<5xf64>, %out0: memref<5xi32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%p : memref<5xf64>) outs(%out0 : memref<5xi32>)
// CHECK-NEXT:    ^bb0(%[[P:.*]]: f64, %{{.*}}: i32):
// CHECK:           %[[U:.*]] = onnxc.uniform %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:      %[[HIT:.*]] = arith.cmpf olt, %[[U]], %[[P]] : f64
// CHECK-NEXT:      %[[V:.*]] = arith.extui %[[HIT]] : i1 to i32
// CHECK-NEXT:      linalg.yield %[[V]] : i32
