// RUN: xdsl-opt %s | xdsl-opt | filecheck %s
// RUN: xdsl-opt --print-op-generic %s | xdsl-opt | filecheck %s

// The onnxc dialect: the model's interface at the linalg and loop levels.
// onnxc.input / onnxc.output see a graph input or output buffer with its
// run-time sizes, onnxc.check stops the model with ONNXC_ERR_SHAPE unless its
// condition holds, onnxc.workspace asks the workspace for that many bytes.

func.func @interface(%n: index, %x: memref<?x4xf32>, %y: memref<?x4xf32>) {
  %0 = onnxc.input %x[%n] index 0 : i64 : memref<?x4xf32> to memref<?x4xf32>
  %c = arith.constant 8 : index
  %ok = arith.cmpi sle, %n, %c : index
  onnxc.check %ok, "n is at most 8"
  %bytes = arith.muli %n, %c : index
  onnxc.workspace %bytes
  %1 = onnxc.output %y[%n] index 0 : i64 : memref<?x4xf32> to memref<?x4xf32>
  func.return
}

// CHECK-LABEL: func.func @interface(%n: index, %x: memref<?x4xf32>, %y: memref<?x4xf32>)
// CHECK-NEXT:    %{{.*}} = onnxc.input %x[%n] index 0 : i64 : memref<?x4xf32> to memref<?x4xf32>
// CHECK:         onnxc.check %{{.*}}, "n is at most 8"
// CHECK:         onnxc.workspace %{{.*}}
// CHECK-NEXT:    %{{.*}} = onnxc.output %y[%n] index 0 : i64 : memref<?x4xf32> to memref<?x4xf32>

// onnxc.uniform: the runtime's random number in [0, 1) for a key and a
// counter, float or double.

func.func @uniform(%k: i64, %i: i64) -> (f32, f64) {
  %u = onnxc.uniform %k, %i : f32
  %v = onnxc.uniform %k, %i : f64
  func.return %u, %v : f32, f64
}

// CHECK-LABEL: func.func @uniform(%k: i64, %i: i64) -> (f32, f64)
// CHECK-NEXT:    %{{.*}} = onnxc.uniform %k, %i : f32
// CHECK-NEXT:    %{{.*}} = onnxc.uniform %k, %i : f64

// onnxc.profile_mark: in a profiling build, step 3 (the code of one node)
// starts here; an empty label ends the last step.

func.func @profile() {
  onnxc.profile_mark 3 : i64, "Conv conv1"
  onnxc.profile_mark 4 : i64, ""
  func.return
}

// CHECK-LABEL: func.func @profile()
// CHECK-NEXT:    onnxc.profile_mark 3 : i64, "Conv conv1"
// CHECK-NEXT:    onnxc.profile_mark 4 : i64, ""
