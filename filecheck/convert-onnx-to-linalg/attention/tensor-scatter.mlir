// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Circular mode: one generic over the cache; position p along the axis takes
// update element (p - write_indices[batch]) mod 6 when it is below the update
// length 2, else the past element. The update is read only where it is taken.

func.func @tensor_scatter_circular(%c: tensor<2x6x3xf32>, %u: tensor<2x2x3xf32>, %w: tensor<2xi64>) -> tensor<2x6x3xf32> {
  %r = "onnx.TensorScatter"(%c, %u, %w) <{axis = 1 : i64, mode = "circular"}> {onnx_node_name = "scatter"} : (tensor<2x6x3xf32>, tensor<2x2x3xf32>, tensor<2xi64>) -> tensor<2x6x3xf32>
  func.return %r : tensor<2x6x3xf32>
}

// CHECK-LABEL: func.func @tensor_scatter_circular(
// CHECK-SAME:      %[[C:[^:]*]]: memref<2x6x3xf32>, %[[U:[^:]*]]: memref<2x2x3xf32>, %[[W:[^:]*]]: memref<2xi64>, %[[Y:[^:]*]]: memref<2x6x3xf32>)
// CHECK-DAG:     %[[LENGTH:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[CAPACITY:.*]] = arith.constant 6 : index
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[C]] : memref<2x6x3xf32>) outs(%[[Y]] : memref<2x6x3xf32>)
// CHECK-NEXT:    ^bb0(%[[PAST:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[N:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[P:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[E:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[RAW:.*]] = memref.load %[[W]][%[[N]]] : memref<2xi64>
// CHECK-NEXT:      %[[START:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK-NEXT:      %[[OFF:.*]] = arith.subi %[[P]], %[[START]] : index
// CHECK-NEXT:      %[[R0:.*]] = arith.remsi %[[OFF]], %[[CAPACITY]] : index
// CHECK-NEXT:      %[[R1:.*]] = arith.addi %[[R0]], %[[CAPACITY]] : index
// CHECK-NEXT:      %[[AT:.*]] = arith.remsi %[[R1]], %[[CAPACITY]] : index
// CHECK:           %[[AFTER:.*]] = arith.cmpi sge, %[[AT]], %{{.*}} : index
// CHECK-NEXT:      %[[BEFORE:.*]] = arith.cmpi slt, %[[AT]], %[[LENGTH]] : index
// CHECK-NEXT:      %[[INSIDE:.*]] = arith.andi %[[AFTER]], %[[BEFORE]] : i1
// CHECK-NEXT:      %[[V:.*]] = scf.if %[[INSIDE]] -> (f32) {
// CHECK-NEXT:        %[[NEW:.*]] = memref.load %[[U]][%[[N]], %[[AT]], %[[E]]] : memref<2x2x3xf32>
// CHECK-NEXT:        scf.yield %[[NEW]] : f32
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %[[PAST]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      linalg.yield %[[V]] : f32

// -----

// Linear mode (the default): each write index is checked first to be in
// [0, 6 - 2]; then no wrap.

func.func @tensor_scatter_linear(%c: tensor<2x6x3xf32>, %u: tensor<2x2x3xf32>, %w: tensor<2xi64>) -> tensor<2x6x3xf32> {
  %r = "onnx.TensorScatter"(%c, %u, %w) <{axis = -2 : i64}> {onnx_node_name = "scatter"} : (tensor<2x6x3xf32>, tensor<2x2x3xf32>, tensor<2xi64>) -> tensor<2x6x3xf32>
  func.return %r : tensor<2x6x3xf32>
}

// CHECK-LABEL: func.func @tensor_scatter_linear(
// CHECK-SAME:      %[[W:[^:]*]]: memref<2xi64>, %[[Y:[^:]*]]: memref<2x6x3xf32>)
// CHECK:         %[[ROOM:.*]] = arith.constant 4 : index
// CHECK:         scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[RAW:.*]] = memref.load %[[W]][%[[N]]] : memref<2xi64>
// CHECK-NEXT:      %[[START:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK:           %[[LOW:.*]] = arith.cmpi sge, %[[START]], %{{.*}} : index
// CHECK-NEXT:      %[[HIGH:.*]] = arith.cmpi sle, %[[START]], %[[ROOM]] : index
// CHECK-NEXT:      %[[OK:.*]] = arith.andi %[[LOW]], %[[HIGH]] : i1
// CHECK-NEXT:      onnxc.check %[[OK]], "TensorScatter scatter: the write index leaves room for the update"
// CHECK:         linalg.generic {{.*}} outs(%[[Y]] : memref<2x6x3xf32>)
// CHECK:           %[[OFF:.*]] = arith.subi
// CHECK-NOT:       arith.remsi
// CHECK:           arith.cmpi sge, %[[OFF]]
