// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @trilu(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %n = "onnx.NoValue"() : () -> none
  %r = "onnx.Trilu"(%x, %n) {onnx_node_name = "tri"} : (tensor<3x4xf32>, none) -> tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}

// CHECK-LABEL: func.func @trilu
// CHECK-SAME:    (%[[X:.*]]: memref<3x4xf32>, %[[Y:.*]]: memref<3x4xf32>)
// CHECK:         %[[K:.*]] = arith.constant 0 : index
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : memref<3x4xf32>) outs(%[[Y]] : memref<3x4xf32>)
// CHECK-NEXT:    ^bb0(%[[E:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[D:.*]] = arith.subi %[[J]], %[[I]] : index
// CHECK-NEXT:      %[[KEEP:.*]] = arith.cmpi sge, %[[D]], %[[K]] : index
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[KEEP]], %[[E]], %[[ZERO]] : f32

// -----

func.func @tril_run_time_k(%x: tensor<3x4xi32>, %k: tensor<i64>) -> tensor<3x4xi32> {
  %r = "onnx.Trilu"(%x, %k) <{upper = 0 : i64}> {onnx_node_name = "tri"} : (tensor<3x4xi32>, tensor<i64>) -> tensor<3x4xi32>
  func.return %r : tensor<3x4xi32>
}

// CHECK-LABEL: func.func @tril_run_time_k
// CHECK-SAME:    (%[[X:.*]]: memref<3x4xi32>, %[[KB:.*]]: memref<i64>, %{{.*}}: memref<3x4xi32>)
// CHECK:         %[[KV:.*]] = memref.load %[[KB]][] : memref<i64>
// CHECK-NEXT:    %[[K:.*]] = arith.index_cast %[[KV]] : i64 to index
// CHECK:           arith.cmpi sle, %{{.*}}, %[[K]] : index
