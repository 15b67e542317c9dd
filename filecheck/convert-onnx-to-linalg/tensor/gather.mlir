// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @gather_scalar(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %i = "onnx.Constant"() <{value = dense<-1> : tensor<i64>}> {onnx_node_name = "index"} : () -> tensor<i64>
  %r = "onnx.Gather"(%x, %i) <{axis = 1 : i64}> {onnx_node_name = "gather"} : (tensor<3x4xf32>, tensor<i64>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @gather_scalar
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0, 3)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%{{.*}} : memref<3x4xf32>) outs(%{{.*}} : memref<3xf32>)

// -----

func.func @gather_progression(%x: tensor<6x4xf32>) -> tensor<2x2x4xf32> {
  %i = "onnx.Constant"() <{value = dense<[[4, 3], [2, -5]]> : tensor<2x2xi64>}> {onnx_node_name = "indices"} : () -> tensor<2x2xi64>
  %r = "onnx.Gather"(%x, %i) <{axis = 0 : i64}> {onnx_node_name = "gather"} : (tensor<6x4xf32>, tensor<2x2xi64>) -> tensor<2x2x4xf32>
  func.return %r : tensor<2x2x4xf32>
}

// CHECK-LABEL: func.func @gather_progression
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> ((((d0 * -2) + (d1 * -1)) + 4), d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]

// -----

func.func @gather_table(%x: tensor<3x4xf32>) -> tensor<3x3xf32> {
  %i = "onnx.Constant"() <{value = dense<[2, 0, 3]> : tensor<3xi64>}> {onnx_node_name = "indices"} : () -> tensor<3xi64>
  %r = "onnx.Gather"(%x, %i) <{axis = 1 : i64}> {onnx_node_name = "gather"} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x3xf32>
  func.return %r : tensor<3x3xf32>
}

// CHECK-LABEL: func.func @gather_table
// CHECK-SAME:    (%[[X:.*]]: memref<3x4xf32>
// CHECK:         %[[TABLE:.*]] = memref.get_global @indices : memref<3xi64>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[TABLE]] : memref<3xi64>) outs(%{{.*}} : memref<3x3xf32>)
// CHECK-NEXT:    ^bb0(%[[I:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:      %[[POS:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK:           %[[NEG:.*]] = arith.cmpi slt, %[[POS]], %{{.*}} : index
// CHECK-NEXT:      %[[WRAP:.*]] = arith.addi %[[POS]], %{{.*}} : index
// CHECK-NEXT:      %[[SEL:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[POS]] : index
// CHECK-NEXT:      %[[LO:.*]] = arith.maxsi %[[SEL]], %{{.*}} : index
// CHECK-NEXT:      %[[HI:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// CHECK-NEXT:      %[[D0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[X]][%[[D0]], %[[HI]]] : memref<3x4xf32>
// CHECK-NEXT:      linalg.yield %[[V]] : f32

// -----

func.func @gather_runtime(%x: tensor<5x4xf32>, %i: tensor<2xi32>) -> tensor<2x4xf32> {
  %r = "onnx.Gather"(%x, %i) <{axis = 0 : i64}> {onnx_node_name = "gather"} : (tensor<5x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// Indices known only at run time are checked first: one out of [-5, 5)
// stops the model.
// CHECK-LABEL: func.func @gather_runtime
// CHECK-SAME:    (%[[X:.*]]: memref<5x4xf32>, %[[I:.*]]: memref<2xi32>
// CHECK:         scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[E:.*]] = memref.load %[[I]][%[[K]]] : memref<2xi32>
// CHECK-NEXT:      %[[AT:.*]] = arith.index_cast %[[E]] : i32 to index
// CHECK:           %[[LOW:.*]] = arith.cmpi sge, %[[AT]], %{{.*}} : index
// CHECK-NEXT:      %[[HIGH:.*]] = arith.cmpi slt, %[[AT]], %{{.*}} : index
// CHECK-NEXT:      %[[OK:.*]] = arith.andi %[[LOW]], %[[HIGH]] : i1
// CHECK-NEXT:      onnxc.check %[[OK]], "Gather gather: an index is in range"
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[I]] : memref<2xi32>)
// CHECK:           arith.index_cast %{{.*}} : i32 to index
// CHECK:           memref.load %[[X]]

// -----

func.func @gather_prefix(%x: tensor<6x4xf32>) -> tensor<3x4xf32> {
  %i = "onnx.Constant"() <{value = dense<[0, 1, 2]> : tensor<3xi64>}> {onnx_node_name = "indices"} : () -> tensor<3xi64>
  %r = "onnx.Gather"(%x, %i) <{axis = 0 : i64}> {onnx_node_name = "gather"} : (tensor<6x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}

// CHECK-LABEL: func.func @gather_prefix
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ((d0 + 0), d1)>, affine_map<(d0, d1) -> (d0, d1)>]
