// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// A first loop counts each string's pieces (Z) and the most (Y's last size, from
// data, at most maxsplit + 1); a second finds each piece from where the last
// ended, as a substring pointing into X's bytes (empty past the last piece).

func.func @split(%x: tensor<2x!onnxc.string>) -> (tensor<2x?x!onnxc.string>, tensor<2xi64>) {
  %y, %z = "onnx.StringSplit"(%x) {onnx_node_name = "split", delimiter = ",", maxsplit = 1 : i64} : (tensor<2x!onnxc.string>) -> (tensor<2x?x!onnxc.string>, tensor<2xi64>)
  func.return %y, %z : tensor<2x?x!onnxc.string>, tensor<2xi64>
}

// CHECK:       onnxc.string_global "split_delimiter" : memref<1x!onnxc.string> = #onnxc.strings<memref<1x!onnxc.string>, [","]>
// CHECK-LABEL: func.func @split(
// CHECK:         %[[MOST:.*]] = scf.for
// CHECK:           %[[PIECES:.*]] = onnxc.string_call "onnxc_split_count"(%{{.*}}, %{{.*}}, %{{.*}}) : (!onnxc.string, !onnxc.string, index) -> index
// CHECK-NEXT:      %[[N:.*]] = arith.index_cast %[[PIECES]] : index to i64
// CHECK-NEXT:      memref.store %[[N]], %out1[%{{.*}}] : memref<2xi64>
// CHECK-NEXT:      %[[MAX:.*]] = arith.maxsi %{{.*}}, %[[PIECES]] : index
// CHECK-NEXT:      scf.yield %[[MAX]] : index
// CHECK:         %[[SIZE:.*]] = arith.minsi %[[MOST]], %{{.*}} : index
// CHECK:         %y = onnxc.output %out0[%[[SIZE]]] index 0
// CHECK:           scf.for %[[K:.*]] = %{{.*}} to %[[SIZE]] step %{{.*}} iter_args(%[[FROM:.*]] = %{{.*}}) -> (index) {
// CHECK:             %[[REST:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK-NEXT:        %[[START:.*]] = onnxc.string_call "onnxc_split_start"(%[[X:.*]], %[[SEP:.*]], %[[FROM]])
// CHECK-NEXT:        %[[END:.*]] = onnxc.string_call "onnxc_split_end"(%[[X]], %{{.*}}, %[[START]], %[[REST]])
// CHECK-NEXT:        %[[LENGTH:.*]] = arith.subi %[[END]], %[[START]] : index
// CHECK-NEXT:        %[[PIECE:.*]] = onnxc.string_make %[[X]][%[[START]]], %[[LENGTH]] : !onnxc.string
// CHECK-NEXT:        memref.store %[[PIECE]], %y[%{{.*}}, %[[K]]] : memref<2x?x!onnxc.string>
// CHECK-NEXT:        %{{.*}} = arith.addi %[[END]], %[[SEP]] : index
