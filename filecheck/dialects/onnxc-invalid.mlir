// RUN: xdsl-opt --split-input-file --verify-diagnostics %s | filecheck %s

// An interface op gives one size per dynamic dimension of its result.

func.func @sizes_missing(%n: index, %x: memref<?x?xf32>) {
  %0 = onnxc.input %x[%n] index 0 : i64 : memref<?x?xf32> to memref<?x?xf32>
  func.return
}
// CHECK: onnxc.input needs one size per dynamic dimension

// -----

func.func @sizes_extra(%n: index, %y: memref<4xf32>) {
  %0 = onnxc.output %y[%n] index 0 : i64 : memref<4xf32> to memref<4xf32>
  func.return
}
// CHECK: onnxc.output needs one size per dynamic dimension
