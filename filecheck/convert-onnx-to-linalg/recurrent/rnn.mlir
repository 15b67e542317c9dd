// RUN: xdsl-opt -p 'convert-onnx-to-linalg{target=cortex-m4}' --split-input-file %s | filecheck %s
// A microcontroller target reads W and R as they are, each gate row's sum
// running over k; host targets read transposed copies (transposed.mlir).

// The input projection of every step is one generic before the recurrence;
// the reverse direction walks each row from its last step.

func.func @rnn_reverse(%x: tensor<5x2x4xf32>, %w: tensor<1x3x4xf32>, %r: tensor<1x3x3xf32>) -> tensor<1x2x3xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y, %h = "onnx.RNN"(%x, %w, %r, %none, %none, %none) <{hidden_size = 3 : i64, direction = "reverse"}> {onnx_node_name = "rnn"} : (tensor<5x2x4xf32>, tensor<1x3x4xf32>, tensor<1x3x3xf32>, none, none, none) -> (none, tensor<1x2x3xf32>)
  func.return %h : tensor<1x2x3xf32>
}

// CHECK-LABEL: func.func @rnn_reverse
// CHECK-SAME:    (%[[X:.*]]: memref<5x2x4xf32>, %[[W:.*]]: memref<1x3x4xf32>, %[[R:.*]]: memref<1x3x3xf32>, %[[YH:.*]]: memref<1x2x3xf32>)
// CHECK:         %[[XW:.*]] = memref.alloc() : memref<1x5x2x3xf32>
// CHECK:         linalg.fill {{.*}} outs(%[[XW]] : memref<1x5x2x3xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[X]], %[[W]] : {{.*}}) outs(%[[XW]] : {{.*}})
// CHECK:         %[[GATES:.*]] = memref.alloc() : memref<3xf32>
// CHECK-NEXT:    %[[H:.*]] = memref.alloc() : memref<3xf32>
// CHECK:         scf.for %[[B:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           memref.store %{{.*}}, %[[H]]
// CHECK:           scf.for %[[S:[^ ]+]] = %{{.*}} to %[[STEPS:[^ ]+]] step %{{.*}} {
// CHECK:             %[[LAST:.*]] = arith.subi %[[STEPS]], %{{.*}} : index
// CHECK-NEXT:        %[[T:.*]] = arith.subi %[[LAST]], %[[S]] : index
// CHECK:               memref.load %[[XW]][%{{.*}}, %[[T]], %[[B]], %[[J:.*]]] : memref<1x5x2x3xf32>
// CHECK:               scf.for %[[K:.*]] = {{.*}} iter_args({{.*}}) -> (f32) {
// CHECK-NEXT:            memref.load %[[H]][%[[K]]] : memref<3xf32>
// CHECK:                 memref.load %[[R]][%{{.*}}, %[[J]], %[[K]]] : memref<1x3x3xf32>
// CHECK:             math.tanh
// CHECK:             memref.store %{{.*}}, %[[H]][%{{.*}}] : memref<3xf32>
// CHECK:           memref.store %{{.*}}, %[[YH]][%{{.*}}, %[[B]], %{{.*}}] : memref<1x2x3xf32>
// CHECK:         } {onnxc.comment = "RNN rnn"}
