// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @eye_like(%x: tensor<3x4xf32>) -> tensor<3x4xi32> {
  %r = "onnx.EyeLike"(%x) <{dtype = 6 : i64, k = -1 : i64}> {onnx_node_name = "eye"} : (tensor<3x4xf32>) -> tensor<3x4xi32>
  func.return %r : tensor<3x4xi32>
}

// CHECK-LABEL: func.func @eye_like
// CHECK-SAME:    (%{{.*}}: memref<3x4xf32>, %[[Y:.*]]: memref<3x4xi32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%[[Y]] : memref<3x4xi32>)
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[K:.*]] = arith.constant -1 : index
// CHECK-NEXT:      %[[DIAG:.*]] = arith.addi %[[I]], %[[K]] : index
// CHECK-NEXT:      %[[ON:.*]] = arith.cmpi eq, %[[J]], %[[DIAG]] : index
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[ON]], %[[ONE]], %[[ZERO]] : i32
