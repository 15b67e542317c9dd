// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// On host targets W and R are copied transposed (gate rows last) once per
// call: the projection's loop over the gate rows is innermost (i, the
// reduction, just outside it), and so is the recurrent term's, each row adding
// h[k] R^T[k, row] for k in order: the same sums in the same order as the
// row-by-row loops, along contiguous memory.

func.func @rnn_reverse(%x: tensor<5x2x4xf32>, %w: tensor<1x3x4xf32>, %r: tensor<1x3x3xf32>) -> tensor<1x2x3xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y, %h = "onnx.RNN"(%x, %w, %r, %none, %none, %none) <{hidden_size = 3 : i64, direction = "reverse"}> {onnx_node_name = "rnn"} : (tensor<5x2x4xf32>, tensor<1x3x4xf32>, tensor<1x3x3xf32>, none, none, none) -> (none, tensor<1x2x3xf32>)
  func.return %h : tensor<1x2x3xf32>
}

// CHECK-LABEL: func.func @rnn_reverse
// CHECK-SAME:    (%[[X:.*]]: memref<5x2x4xf32>, %[[W:.*]]: memref<1x3x4xf32>, %[[R:.*]]: memref<1x3x3xf32>, %[[YH:.*]]: memref<1x2x3xf32>)
// CHECK:         %[[XW:.*]] = memref.alloc() : memref<1x5x2x3xf32>
// CHECK-NEXT:    %[[WT:.*]] = memref.alloc() : memref<1x4x3xf32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], {{.*}} ins(%[[W]] : memref<1x3x4xf32>) outs(%[[WT]] : memref<1x4x3xf32>)
// CHECK:         %[[RT:.*]] = memref.alloc() : memref<1x3x3xf32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], {{.*}} ins(%[[R]] : memref<1x3x3xf32>) outs(%[[RT]] : memref<1x3x3xf32>)
// CHECK:         linalg.fill {{.*}} outs(%[[XW]] : memref<1x5x2x3xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%[[X]], %[[WT]] : {{.*}}) outs(%[[XW]] : {{.*}})
// CHECK:         %[[GATES:.*]] = memref.alloc() : memref<3xf32>
// CHECK-NEXT:    %[[H:.*]] = memref.alloc() : memref<3xf32>
// CHECK:         scf.for %[[B:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           memref.store %{{.*}}, %[[H]]
// CHECK:           scf.for %[[S:[^ ]+]] = %{{.*}} to %[[STEPS:[^ ]+]] step %{{.*}} {
// CHECK:             %[[LAST:.*]] = arith.subi %[[STEPS]], %{{.*}} : index
// CHECK-NEXT:        %[[T:.*]] = arith.subi %[[LAST]], %[[S]] : index
// CHECK:             scf.for %[[J:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          %[[D:.*]] = arith.constant 0 : index
// CHECK-NEXT:          %[[P:.*]] = memref.load %[[XW]][%[[D]], %[[T]], %[[B]], %[[J]]] : memref<1x5x2x3xf32>
// CHECK-NEXT:          memref.store %[[P]], %[[GATES]][%[[J]]] : memref<3xf32>
// CHECK:             scf.for %[[K:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          %[[HK:.*]] = memref.load %[[H]][%[[K]]] : memref<3xf32>
// CHECK:               scf.for %[[ROW:[^ ]+]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:            %{{.*}} = arith.constant 0 : index
// CHECK-NEXT:            %[[RK:.*]] = memref.load %[[RT]][%{{.*}}, %[[K]], %[[ROW]]] : memref<1x3x3xf32>
// CHECK-NEXT:            %[[G:.*]] = memref.load %[[GATES]][%[[ROW]]] : memref<3xf32>
// CHECK-NEXT:            %[[TERM:.*]] = arith.mulf %[[HK]], %[[RK]] : f32
// CHECK-NEXT:            %[[SUM:.*]] = arith.addf %[[G]], %[[TERM]] : f32
// CHECK-NEXT:            memref.store %[[SUM]], %[[GATES]][%[[ROW]]] : memref<3xf32>
// CHECK:             math.tanh
// CHECK:           memref.store %{{.*}}, %[[YH]][%{{.*}}, %[[B]], %{{.*}}] : memref<1x2x3xf32>
// CHECK:         } {onnxc.comment = "RNN rnn"}
