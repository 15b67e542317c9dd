// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// output_shape (read at run time) is larger than the inferred 1x1x4x4: the
// indices are positions in the inferred tensor, decomposed row-major over
// it, and stored at the start of the zero-filled output.
// CHECK-LABEL: func.func @max_unpool(
// CHECK-SAME:      %[[X:.*]]: memref<1x1x2x2xf32>, %[[I:.*]]: memref<1x1x2x2xi64>, %[[S:.*]]: memref<4xi64>, %[[OUT:.*]]: memref<1x1x5x5xf32>)
// CHECK:         %[[W:.*]] = arith.constant 4 : index
// CHECK:         %[[TOTAL:.*]] = arith.constant 16 : index
// CHECK:         onnxc.check %{{.*}}, "size of 5 as inferred"
// CHECK:         linalg.fill {{.*}} outs(%[[OUT]] : memref<1x1x5x5xf32>)
// CHECK:         scf.for %[[N:[^ ]+]] =
// CHECK:           scf.for %[[C:[^ ]+]] =
// CHECK:             scf.for %[[H:[^ ]+]] =
// CHECK:               scf.for %[[V:[^ ]+]] =
// CHECK-NEXT:            %[[RAW:.*]] = memref.load %[[I]][%[[N]], %[[C]], %[[H]], %[[V]]] : memref<1x1x2x2xi64>
// CHECK-NEXT:            %[[FLAT:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK-NEXT:            %[[OK:.*]] = arith.cmpi ult, %[[FLAT]], %[[TOTAL]] : index
// CHECK-NEXT:            onnxc.check %[[OK]], "MaxUnpool unpool: I is a position in the unpooled tensor"
// CHECK-NEXT:            %[[COL:.*]] = arith.remui %[[FLAT]], %[[W]] : index
// CHECK-NEXT:            %[[REST:.*]] = arith.divui %[[FLAT]], %[[W]] : index
// CHECK-NEXT:            %[[ROW:.*]] = arith.remui %[[REST]], %[[W]] : index
// CHECK:                 %[[VALUE:.*]] = memref.load %[[X]][%[[N]], %[[C]], %[[H]], %[[V]]] : memref<1x1x2x2xf32>
// CHECK-NEXT:            memref.store %[[VALUE]], %[[OUT]][%{{.*}}, %{{.*}}, %[[ROW]], %[[COL]]] : memref<1x1x5x5xf32>

func.func @max_unpool(%x: tensor<1x1x2x2xf32>, %i: tensor<1x1x2x2xi64>, %s: tensor<4xi64>) -> tensor<1x1x5x5xf32> {
  %y = "onnx.MaxUnpool"(%x, %i, %s) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> {onnx_node_name = "unpool"} : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, tensor<4xi64>) -> tensor<1x1x5x5xf32>
  func.return %y : tensor<1x1x5x5xf32>
}
