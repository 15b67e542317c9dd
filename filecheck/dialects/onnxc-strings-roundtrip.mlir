// RUN: xdsl-opt %s | xdsl-opt | filecheck %s
// RUN: xdsl-opt --print-op-generic %s | xdsl-opt | filecheck %s

// String tensors: the !onnxc.string element type, constants as
// #onnxc.strings in an onnxc.string_global, and the scalar string operations.

builtin.module {
  onnxc.string_global "names" : memref<2x!onnxc.string> = #onnxc.strings<memref<2x!onnxc.string>, ["cat", "d\C3\B6g"]>

  func.func @strings(%x: memref<2x!onnxc.string>, %bytes: memref<?xi8>, %y: memref<2xi1>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %names = memref.get_global @names : memref<2x!onnxc.string>
    %a = memref.load %x[%c0] : memref<2x!onnxc.string>
    %b = memref.load %names[%c1] : memref<2x!onnxc.string>
    %same = onnxc.string_equal %a, %b
    memref.store %same, %y[%c0] : memref<2xi1>
    %n = onnxc.string_size %a
    %head = onnxc.string_make %a[%c1], %n : !onnxc.string
    %made = onnxc.string_make %bytes[%c0], %n : memref<?xi8>
    %upper = arith.constant 1 : i32
    %size = onnxc.string_call "onnxc_case_size"(%head, %upper) : (!onnxc.string, i32) -> index
    func.return
  }
}

// CHECK: onnxc.string_global "names" : memref<2x!onnxc.string> = #onnxc.strings<memref<2x!onnxc.string>, ["cat", "d\C3\B6g"]>
// CHECK: %same = onnxc.string_equal %a, %b
// CHECK: %n = onnxc.string_size %a
// CHECK: %head = onnxc.string_make %a[%c1], %n : !onnxc.string
// CHECK: %made = onnxc.string_make %bytes[%c0], %n : memref<?xi8>
// CHECK: %size = onnxc.string_call "onnxc_case_size"(%head, %upper) : (!onnxc.string, i32) -> index
