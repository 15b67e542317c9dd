// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @gather_elements(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %r = "onnx.GatherElements"(%x, %i) <{axis = 1 : i64}> {onnx_node_name = "ge"} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME:    (%[[X:.*]]: memref<3x4xf32>, %[[I:.*]]: memref<3x2xi64>, %[[Y:.*]]: memref<3x2xf32>)
// CHECK:         %[[SIZE:.*]] = arith.constant 4 : index
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[I]] : memref<3x2xi64>) outs(%[[Y]] : memref<3x2xf32>)
// CHECK-NEXT:    ^bb0(%[[INDEX:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:      %[[D0:.*]] = linalg.index 0 : index
// CHECK:           %[[P:.*]] = arith.index_cast %[[INDEX]] : i64 to index
// CHECK:           %[[NEG:.*]] = arith.cmpi slt, %[[P]], %{{.*}} : index
// CHECK-NEXT:      %[[UP:.*]] = arith.addi %[[P]], %[[SIZE]] : index
// CHECK-NEXT:      %[[W:.*]] = arith.select %[[NEG]], %[[UP]], %[[P]] : index
// CHECK-NEXT:      %[[OK:.*]] = arith.cmpi ult, %[[W]], %[[SIZE]] : index
// CHECK-NEXT:      onnxc.check %[[OK]], "GatherElements ge: an index is in range"
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[X]][%[[D0]], %[[W]]] : memref<3x4xf32>
// CHECK-NEXT:      linalg.yield %[[V]] : f32
