// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @gather_nd(%x: tensor<2x3x4xf32>, %i: tensor<2x2xi64>) -> tensor<2x4xf32> {
  %r = "onnx.GatherND"(%x, %i) {onnx_node_name = "gnd"} : (tensor<2x3x4xf32>, tensor<2x2xi64>) -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @gather_nd
// CHECK-SAME:    (%[[X:.*]]: memref<2x3x4xf32>, %[[I:.*]]: memref<2x2xi64>, %[[Y:.*]]: memref<2x4xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%[[Y]] : memref<2x4xf32>)
// CHECK:           %[[D0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[D1:.*]] = linalg.index 1 : index
// CHECK:           memref.load %[[I]][%[[D0]], %{{.*}}] : memref<2x2xi64>
// CHECK:           onnxc.check %{{.*}}, "GatherND gnd: index 0 of a tuple is in range"
// CHECK:           memref.load %[[I]][%[[D0]], %{{.*}}] : memref<2x2xi64>
// CHECK:           onnxc.check %{{.*}}, "GatherND gnd: index 1 of a tuple is in range"
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[X]][%{{.*}}, %{{.*}}, %[[D1]]] : memref<2x3x4xf32>
// CHECK-NEXT:      linalg.yield %[[V]] : f32
