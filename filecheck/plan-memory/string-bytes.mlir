// RUN: xdsl-opt -p plan-memory %s | filecheck %s

// The bytes of new strings (onnxc.string_bytes) live to the end of the
// function: a string stored anywhere later may point into them. Here %b is
// last touched before %c is born, yet %c does not reuse its bytes.

func.func @strings(%x: memref<2x!onnxc.string>, %out0: memref<2x!onnxc.string>, %out1: memref<64xi8>) attributes {onnxc.input_names = ["x"], onnxc.output_names = ["y", "z"]} {
  %c0 = arith.constant 0 : index
  %b = memref.alloc() {onnxc.string_bytes} : memref<64xi8>
  %s = memref.load %x[%c0] : memref<2x!onnxc.string>
  %made = onnxc.string_call "onnxc_string_concat"(%b, %c0, %s, %s) : (memref<64xi8>, index, !onnxc.string, !onnxc.string) -> !onnxc.string
  memref.store %made, %out0[%c0] : memref<2x!onnxc.string>
  %c = memref.alloc() : memref<64xi8>
  "memref.copy"(%out1, %c) : (memref<64xi8>, memref<64xi8>) -> ()
  "memref.copy"(%c, %out1) : (memref<64xi8>, memref<64xi8>) -> ()
  func.return
}

// CHECK-LABEL: func.func @strings(
// CHECK:         %arena = memref.alloc() {alignment = 16 : i64, onnxc.arena} : memref<128xi8>
// CHECK:         %b = memref.view %arena[%{{.*}}][] {onnxc.string_bytes} : memref<128xi8> to memref<64xi8>
// CHECK:         %c = memref.view %arena[%{{.*}}][] : memref<128xi8> to memref<64xi8>
