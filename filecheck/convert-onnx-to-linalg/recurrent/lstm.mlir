// RUN: xdsl-opt -p 'convert-onnx-to-linalg{target=cortex-m4}' --split-input-file %s | filecheck %s
// A microcontroller target reads W and R as they are, each gate row's sum
// running over k; host targets read transposed copies (transposed.mlir).

// Layout 1 (batch first), peepholes, and every output: Y is written at each
// step, Y_h and Y_c after the row's last step.

func.func @lstm_batchwise(%x: tensor<2x5x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>, %p: tensor<1x9xf32>) -> (tensor<2x5x1x3xf32>, tensor<2x1x3xf32>, tensor<2x1x3xf32>) {
  %none = "onnx.NoValue"() : () -> none
  %y, %h, %c = "onnx.LSTM"(%x, %w, %r, %none, %none, %none, %none, %p) <{hidden_size = 3 : i64, layout = 1 : i64}> {onnx_node_name = "lstm"} : (tensor<2x5x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, none, none, none, none, tensor<1x9xf32>) -> (tensor<2x5x1x3xf32>, tensor<2x1x3xf32>, tensor<2x1x3xf32>)
  func.return %y, %h, %c : tensor<2x5x1x3xf32>, tensor<2x1x3xf32>, tensor<2x1x3xf32>
}

// CHECK-LABEL: func.func @lstm_batchwise
// CHECK-SAME:    (%[[X:.*]]: memref<2x5x4xf32>, %{{.*}}, %{{.*}}, %[[P:.*]]: memref<1x9xf32>, %[[Y:.*]]: memref<2x5x1x3xf32>, %[[YH:.*]]: memref<2x1x3xf32>, %[[YC:.*]]: memref<2x1x3xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d2, d1, d4)>, {{.*}} ins(%[[X]], {{.*}})
// CHECK:         %[[GATES:.*]] = memref.alloc() : memref<12xf32>
// CHECK-NEXT:    %[[H:.*]] = memref.alloc() : memref<3xf32>
// CHECK-NEXT:    %[[C:.*]] = memref.alloc() : memref<3xf32>
// CHECK:         scf.for %[[B:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           memref.store %{{.*}}, %[[C]]
// CHECK:           scf.for %[[T:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:               memref.store %{{.*}}, %[[GATES]]
// CHECK:             scf.for %[[U:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          %[[PREV:.*]] = memref.load %[[C]][%[[U]]] : memref<3xf32>
// CHECK:               %[[PI:.*]] = memref.load %[[P]][%{{.*}}, %[[U]]] : memref<1x9xf32>
// CHECK-NEXT:          arith.mulf %[[PI]], %[[PREV]] : f32
// CHECK:               %[[G:.*]] = math.tanh
// CHECK-NEXT:          %[[KEEP:.*]] = arith.mulf %{{.*}}, %[[PREV]] : f32
// CHECK-NEXT:          %[[NEW:.*]] = arith.mulf %{{.*}}, %[[G]] : f32
// CHECK-NEXT:          %[[CELL:.*]] = arith.addf %[[KEEP]], %[[NEW]] : f32
// CHECK:               %[[PO:.*]] = memref.load %[[P]]
// CHECK-NEXT:          arith.mulf %[[PO]], %[[CELL]] : f32
// CHECK:               memref.store %[[CELL]], %[[C]][%[[U]]] : memref<3xf32>
// CHECK-NEXT:          %[[OUT:.*]] = math.tanh %[[CELL]] : f32
// CHECK-NEXT:          %[[HNEW:.*]] = arith.mulf %{{.*}}, %[[OUT]] : f32
// CHECK-NEXT:          memref.store %[[HNEW]], %[[H]][%[[U]]] : memref<3xf32>
// CHECK:             memref.store %{{.*}}, %[[Y]][%[[B]], %[[T]], %{{.*}}, %{{.*}}] : memref<2x5x1x3xf32>
// CHECK:           memref.store %{{.*}}, %[[YH]][%[[B]], %{{.*}}, %{{.*}}] : memref<2x1x3xf32>
// CHECK:           memref.store %{{.*}}, %[[YC]][%[[B]], %{{.*}}, %{{.*}}] : memref<2x1x3xf32>
