// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Each branch writes its output into the buffer allocated before the if; a
// branch reads the outer scope's values.
func.func @branches(%c: tensor<i1>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %r = "onnx.If"(%c) ({
    %e = "onnx.Neg"(%x) {onnx_node_name = "neg"} : (tensor<3xf32>) -> tensor<3xf32>
    "onnx.Yield"(%e) : (tensor<3xf32>) -> ()
  }, {
    %t = "onnx.Relu"(%x) {onnx_node_name = "relu"} : (tensor<3xf32>) -> tensor<3xf32>
    "onnx.Yield"(%t) : (tensor<3xf32>) -> ()
  }) {onnx_node_name = "if"} : (tensor<i1>) -> tensor<3xf32>
  %y = "onnx.Exp"(%r) {onnx_node_name = "exp"} : (tensor<3xf32>) -> tensor<3xf32>
  func.return %y : tensor<3xf32>
}

// CHECK-LABEL: func.func @branches(
// CHECK-SAME:    %[[C:[^:]*]]: memref<i1>, %[[X:[^:]*]]: memref<3xf32>, %{{.*}}: memref<3xf32>)
// CHECK:         %[[COND:.*]] = memref.load %[[C]][] : memref<i1>
// CHECK-NEXT:    %[[R:.*]] = memref.alloc() : memref<3xf32>
// CHECK-NEXT:    scf.if %[[COND]] {
// CHECK:           linalg.generic {{.*}} ins(%[[X]] : memref<3xf32>) outs(%[[R]] : memref<3xf32>)
// CHECK:             arith.maximumf
// CHECK:         } else {
// CHECK:           linalg.generic {{.*}} ins(%[[X]] : memref<3xf32>) outs(%[[R]] : memref<3xf32>)
// CHECK:             arith.negf
// CHECK:         }
// CHECK:         linalg.generic {{.*}} ins(%[[R]] : memref<3xf32>)
// CHECK:           math.exp

// -----

// A branch that yields an outer value copies it.
func.func @forward(%c: tensor<i1>, %x: tensor<2xf32>, %z: tensor<2xf32>) -> tensor<2xf32> {
  %r = "onnx.If"(%c) ({
    "onnx.Yield"(%z) : (tensor<2xf32>) -> ()
  }, {
    "onnx.Yield"(%x) : (tensor<2xf32>) -> ()
  }) {onnx_node_name = "if"} : (tensor<i1>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @forward(
// CHECK-SAME:    %[[C:[^:]*]]: memref<i1>, %[[X:[^:]*]]: memref<2xf32>, %[[Z:[^:]*]]: memref<2xf32>, %[[OUT:[^:]*]]: memref<2xf32>)
// CHECK:         scf.if
// CHECK:           scf.for %[[I:.*]] = {{.*}} {
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[X]][%[[I]]] : memref<2xf32>
// CHECK-NEXT:        memref.store %[[V]], %[[OUT]][%[[I]]] : memref<2xf32>
// CHECK:         } else {
// CHECK:           scf.for %[[J:.*]] = {{.*}} {
// CHECK-NEXT:        %[[W:.*]] = memref.load %[[Z]][%[[J]]] : memref<2xf32>
// CHECK-NEXT:        memref.store %[[W]], %[[OUT]][%[[J]]] : memref<2xf32>
