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

// onnxc.dot2 and onnxc.widen_bytes: the integer kernels' pair arithmetic
// (SMLAD and SXTB16 on Armv7E-M).

func.func @pairs(%w: i32, %c: i32, %acc: i32) -> i32 {
  %even = onnxc.widen_bytes %w odd 0
  %odd = onnxc.widen_bytes %w odd 1
  %s = onnxc.dot2 %even, %c, %acc
  %t = onnxc.dot2 %odd, %c, %s
  func.return %t : i32
}

// CHECK-LABEL: func.func @pairs(%w: i32, %c: i32, %acc: i32) -> i32
// CHECK-NEXT:    %{{.*}} = onnxc.widen_bytes %w odd 0 : i64
// CHECK-NEXT:    %{{.*}} = onnxc.widen_bytes %w odd 1 : i64
// CHECK-NEXT:    %{{.*}} = onnxc.dot2 %{{.*}}, %c, %acc
// CHECK-NEXT:    %{{.*}} = onnxc.dot2 %{{.*}}, %c, %{{.*}}

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
