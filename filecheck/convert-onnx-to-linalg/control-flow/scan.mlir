// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Scan over axis 1 of %x, backwards: each trip copies slice `T-1-i` into
// the body's input buffer; the scan output is stacked at axis 0.
func.func @scan(%s: tensor<2xf32>, %x: tensor<2x4xf32>) -> (tensor<2xf32>, tensor<4x2xf32>) {
  %f, %o = "onnx.Scan"(%s, %x) <{num_scan_inputs = 1 : i64, scan_input_axes = array<i64: 1>, scan_input_directions = array<i64: 1>}> ({
  ^bb0(%acc: tensor<2xf32>, %col: tensor<2xf32>):
    %sum = "onnx.Add"(%acc, %col) {onnx_node_name = "add"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "onnx.Yield"(%sum, %sum) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }) {onnx_node_name = "scan"} : (tensor<2xf32>, tensor<2x4xf32>) -> (tensor<2xf32>, tensor<4x2xf32>)
  func.return %f, %o : tensor<2xf32>, tensor<4x2xf32>
}

// CHECK-LABEL: func.func @scan(
// CHECK-SAME:    %{{[^:]*}}: memref<2xf32>, %[[X:[^:]*]]: memref<2x4xf32>, %[[F:[^:]*]]: memref<2xf32>, %[[O:[^:]*]]: memref<4x2xf32>)
// CHECK:         %[[COL:.*]] = memref.alloc() : memref<2xf32>
// CHECK:         %[[LAST:.*]] = arith.constant 3 : index
// CHECK:         scf.for %[[IT:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      %[[BACK:.*]] = arith.subi %[[LAST]], %[[IT]] : index
// CHECK:           scf.for %[[J:.*]] = {{.*}} {
// CHECK-NEXT:        %[[E:.*]] = memref.load %[[X]][%[[J]], %[[BACK]]] : memref<2x4xf32>
// CHECK-NEXT:        memref.store %[[E]], %[[COL]][%[[J]]] : memref<2xf32>
// CHECK:           linalg.generic {{.*}} ins(%[[F]], %[[COL]] : memref<2xf32>, memref<2xf32>) outs(%[[SUM:.*]] : memref<2xf32>)
// CHECK:             memref.store %{{.*}}, %[[O]][%[[IT]], %{{.*}}] : memref<4x2xf32>
// CHECK:             memref.store %{{.*}}, %[[F]][%{{.*}}] : memref<2xf32>
// CHECK:         } {onnxc.comment = "Scan scan"}
