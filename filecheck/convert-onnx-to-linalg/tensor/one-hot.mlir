// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @one_hot(%i: tensor<3xi64>, %v: tensor<2xf32>) -> tensor<3x5xf32> {
  %d = "onnx.Constant"() <{value = dense<5> : tensor<i64>}> {onnx_node_name = "depth"} : () -> tensor<i64>
  %r = "onnx.OneHot"(%i, %d, %v) {onnx_node_name = "oh"} : (tensor<3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<3x5xf32>
  func.return %r : tensor<3x5xf32>
}

// CHECK-LABEL: func.func @one_hot
// CHECK-SAME:    (%[[I:.*]]: memref<3xi64>, %[[V:.*]]: memref<2xf32>, %[[Y:.*]]: memref<3x5xf32>)
// CHECK:         %[[OFF:.*]] = memref.load %[[V]][%{{.*}}] {{.*}} : memref<2xf32>
// CHECK:         %[[ON:.*]] = memref.load %[[V]][%{{.*}}] {{.*}} : memref<2xf32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[I]] : memref<3xi64>) outs(%[[Y]] : memref<3x5xf32>)
// CHECK:           %[[D1:.*]] = linalg.index 1 : index
// CHECK:           %[[W:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      %[[HIT:.*]] = arith.cmpi eq, %[[W]], %[[D1]] : index
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[HIT]], %[[ON]], %[[OFF]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
