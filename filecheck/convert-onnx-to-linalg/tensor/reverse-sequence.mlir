// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @reverse_sequence(%x: tensor<4x3xf32>, %l: tensor<3xi64>) -> tensor<4x3xf32> {
  %r = "onnx.ReverseSequence"(%x, %l) <{batch_axis = 1 : i64, time_axis = 0 : i64}> {onnx_node_name = "rev"} : (tensor<4x3xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  func.return %r : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @reverse_sequence
// CHECK-SAME:    (%[[X:.*]]: memref<4x3xf32>, %[[L:.*]]: memref<3xi64>, %[[Y:.*]]: memref<4x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[L]] : memref<3xi64>) outs(%[[Y]] : memref<4x3xf32>)
// CHECK-NEXT:    ^bb0(%[[LEN:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:      %[[T:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[B:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[N:.*]] = arith.index_cast %[[LEN]] : i64 to index
// CHECK-NEXT:      %[[OK:.*]] = arith.cmpi ult, %[[N]], %{{.*}} : index
// CHECK-NEXT:      onnxc.check %[[OK]], "ReverseSequence rev: 0 <= sequence_lens[b] <= the time steps"
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi slt, %[[T]], %[[N]] : index
// CHECK:           %[[MIRROR:.*]] = arith.subi %{{.*}}, %[[T]] : index
// CHECK-NEXT:      %[[AT:.*]] = arith.select %[[IN]], %[[MIRROR]], %[[T]] : index
// CHECK-NEXT:      memref.load %[[X]][%[[AT]], %[[B]]] : memref<4x3xf32>
