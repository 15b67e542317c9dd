// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// For each position outside the axis, an scf.for walks the axis carrying the
// running sum; exclusive stores it before adding the element, reverse walks
// from the end.

func.func @cumsum_exclusive_reverse(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %axis = "onnx.Constant"() <{value = dense<1> : tensor<i64>}> {onnx_node_name = "axis"} : () -> tensor<i64>
  %r = "onnx.CumSum"(%x, %axis) <{exclusive = 1 : i64, reverse = 1 : i64}> {onnx_node_name = "cumsum"} : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @cumsum_exclusive_reverse(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xf32>, %[[OUT:[^:]*]]: memref<2x3xf32>)
// CHECK:         scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[N:.*]] = arith.constant 3 : index
// CHECK:           %[[LAST:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           scf.for %[[T:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT:        %[[I:.*]] = arith.subi %[[LAST]], %[[T]] : index
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[X]][%[[ROW]], %[[I]]] : memref<2x3xf32>
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:        memref.store %[[ACC]], %[[OUT]][%[[ROW]], %[[I]]] : memref<2x3xf32>
// CHECK-NEXT:        scf.yield %[[S]] : f32

// -----

func.func @cumsum_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %axis = "onnx.Constant"() <{value = dense<0> : tensor<1xi32>}> {onnx_node_name = "axis"} : () -> tensor<1xi32>
  %r = "onnx.CumSum"(%x, %axis) {onnx_node_name = "cumsum"} : (tensor<4xf16>, tensor<1xi32>) -> tensor<4xf16>
  func.return %r : tensor<4xf16>
}

// CHECK-LABEL: func.func @cumsum_f16(
// CHECK-SAME:      %[[X:[^:]*]]: memref<4xf16>, %[[OUT:[^:]*]]: memref<4xf16>)
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[X]][%[[I]]] : memref<4xf16>
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[W]] : f32
// CHECK-NEXT:      %[[H:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT:      memref.store %[[H]], %[[OUT]][%[[I]]] : memref<4xf16>
