// RUN: xdsl-opt -p 'convert-onnx-to-linalg{target=cortex-m4}' --split-input-file %s | filecheck %s
// A microcontroller target reads W and R as they are, each gate row's sum
// running over k; host targets read transposed copies (transposed.mlir).

// linear_before_reset: the candidate's recurrent product (with Rbh) is
// computed without the projection, then scaled by the reset gate and added
// to the projection and Wbh.

func.func @gru_linear_before_reset(%x: tensor<5x2x4xf32>, %w: tensor<1x6x4xf32>, %r: tensor<1x6x2xf32>, %b: tensor<1x12xf32>) -> tensor<1x2x2xf32> {
  %none = "onnx.NoValue"() : () -> none
  %y, %h = "onnx.GRU"(%x, %w, %r, %b, %none, %none) <{hidden_size = 2 : i64, linear_before_reset = 1 : i64}> {onnx_node_name = "gru"} : (tensor<5x2x4xf32>, tensor<1x6x4xf32>, tensor<1x6x2xf32>, tensor<1x12xf32>, none, none) -> (none, tensor<1x2x2xf32>)
  func.return %h : tensor<1x2x2xf32>
}

// CHECK-LABEL: func.func @gru_linear_before_reset
// CHECK-SAME:    (%{{.*}}, %{{.*}}, %[[R:.*]]: memref<1x6x2xf32>, %[[BIAS:.*]]: memref<1x12xf32>, %{{.*}})
// CHECK:         %[[XW:.*]] = memref.alloc() : memref<1x5x2x6xf32>
// CHECK:         %[[GATES:.*]] = memref.alloc() : memref<6xf32>
// CHECK:         scf.for
// CHECK:           scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
//                    z and r rows: projection, Wb, Rb, h R^T
// CHECK:               memref.load %[[XW]]
// CHECK:               memref.load %[[BIAS]]
// CHECK:               memref.load %[[BIAS]]
// CHECK:               scf.for
// CHECK:               memref.store %{{.*}}, %[[GATES]]
//                    the reset gate, activated in place
// CHECK:             onnxc.sigmoid
// CHECK:             memref.store %{{.*}}, %[[GATES]]
//                    the candidate's rows: Rbh + h Rh^T only
// CHECK:             scf.for
// CHECK-NEXT:          %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:          %[[ROW:.*]] = arith.addi %[[C4]], %{{.*}} : index
// CHECK-NEXT:          %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:               %[[RB:.*]] = memref.load %[[BIAS]]
// CHECK-NEXT:          arith.addf %[[ZERO]], %[[RB]] : f32
// CHECK:               memref.load %[[R]][%{{.*}}, %[[ROW]], %{{.*}}]
//                    the update: (1 - z) * g(x + Wbh + r * (h Rh^T + Rbh)) + z * h
// CHECK:             scf.for
// CHECK:               %[[RESET:.*]] = arith.mulf
// CHECK:               memref.load %[[XW]]
// CHECK:               %[[PRE:.*]] = arith.addf %{{.*}}, %[[RESET]] : f32
// CHECK-NEXT:          math.tanh %[[PRE]] : f32
// CHECK:               arith.subf
