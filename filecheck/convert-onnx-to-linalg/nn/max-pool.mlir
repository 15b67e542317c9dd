// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// ceil_mode windows run past the end (no begin pads): interior outputs
// (o <= 1 on both dims) take constant tap loops, the last row and column
// clamp only the upper bound. No padded copy, no fill, no window buffer.
// CHECK-LABEL: func.func @max_pool_ceil_mode(
// CHECK-SAME:      %[[X:.*]]: memref<1x2x5x5xf32>, %[[OUT:.*]]: memref<1x2x3x3xf32>)
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     linalg.fill
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%[[OUT]] : memref<1x2x3x3xf32>)
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: f32):
// CHECK-NEXT:      %[[N:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[C:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[OH:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[OW:.*]] = linalg.index 3 : index
// CHECK-NEXT:      %[[SH:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[HSTART:.*]] = arith.muli %[[OH]], %[[SH]] : index
// CHECK-NEXT:      %[[SW:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[WSTART:.*]] = arith.muli %[[OW]], %[[SW]] : index
// CHECK-NEXT:      %[[LASTH:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[INH:.*]] = arith.cmpi sle, %[[OH]], %[[LASTH]] : index
// CHECK-NEXT:      %[[LASTW:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[INW:.*]] = arith.cmpi sle, %[[OW]], %[[LASTW]] : index
// CHECK-NEXT:      %[[INSIDE:.*]] = arith.andi %[[INH]], %[[INW]] : i1
// CHECK-NEXT:      %[[MAX:.*]] = scf.if %[[INSIDE]] -> (f32) {
// CHECK-NEXT:        %[[KH0:.*]] = arith.constant 0 : index
// CHECK-NEXT:        %[[KH2:.*]] = arith.constant 2 : index
// CHECK-NEXT:        %[[KW0:.*]] = arith.constant 0 : index
// CHECK-NEXT:        %[[KW2:.*]] = arith.constant 2 : index
// CHECK-NEXT:        %[[NEGINF:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:        %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:        %{{.*}} = scf.for %[[KH:.*]] = %[[KH0]] to %[[KH2]] step %{{.*}} iter_args(%{{.*}} = %[[NEGINF]]) -> (f32) {
// CHECK-NEXT:          %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:          %{{.*}} = scf.for %[[KW:.*]] = %[[KW0]] to %[[KW2]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:            %[[IH:.*]] = arith.addi %[[HSTART]], %[[KH]] : index
// CHECK-NEXT:            %[[IW:.*]] = arith.addi %[[WSTART]], %[[KW]] : index
// CHECK-NEXT:            %[[XS:.*]] = memref.load %[[X]][%[[N]], %[[C]], %[[IH]], %[[IW]]] : memref<1x2x5x5xf32>
// CHECK-NEXT:            %[[NEXT:.*]] = arith.maximumf %[[ACC]], %[[XS]] : f32
// CHECK-NEXT:            scf.yield %[[NEXT]] : f32
// CHECK:           } else {
// CHECK-NEXT:        %[[HLO:.*]] = arith.constant 0 : index
// CHECK-NEXT:        %[[KH:.*]] = arith.constant 2 : index
// CHECK-NEXT:        %[[H:.*]] = arith.constant 5 : index
// CHECK-NEXT:        %[[LEFTH:.*]] = arith.subi %[[H]], %[[HSTART]] : index
// CHECK-NEXT:        %[[HHI:.*]] = arith.minsi %[[LEFTH]], %[[KH]] : index
// CHECK:             %[[WHI:.*]] = arith.minsi
// CHECK:             scf.for %{{.*}} = %[[HLO]] to %[[HHI]] step
// CHECK:               scf.for %{{.*}} = %{{.*}} to %[[WHI]] step
// CHECK:                 memref.load %[[X]]
// CHECK:                 arith.maximumf
// CHECK:           linalg.yield %[[MAX]] : f32

func.func @max_pool_ceil_mode(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %y, %i = "onnx.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64}> {onnx_node_name = "pool"} : (tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<0xi64>)
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @max_pool_no_padding(
// CHECK-SAME:      %[[X:.*]]: memref<1x2x4x4xf32>, %[[OUT:.*]]: memref<1x2x2x2xf32>)
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.*}} outs(%[[OUT]] : memref<1x2x2x2xf32>)
// CHECK-NOT:       scf.if
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               memref.load %[[X]]
// CHECK:               arith.maximumf

func.func @max_pool_no_padding(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %y, %i = "onnx.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>}> {onnx_node_name = "pool"} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<0xi64>)
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// Indices: a second generic over the output reads the maximum and finds the
// first tap equal to it; its position in X is (n * C + c) * 16 plus the
// column-major (storage_order=1) spatial position h * 1 + w * 4.
// CHECK-LABEL: func.func @max_pool_indices(
// CHECK-SAME:      %[[X:.*]]: memref<1x2x4x4xf32>, %[[Y:.*]]: memref<1x2x2x2xf32>, %[[I:.*]]: memref<1x2x2x2xi64>)
// CHECK:         %[[C:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[PLANE:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[HSTRIDE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[WSTRIDE:.*]] = arith.constant 4 : index
// CHECK:         linalg.generic {{.*}} outs(%[[Y]] : memref<1x2x2x2xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[Y]] : memref<1x2x2x2xf32>) outs(%[[I]] : memref<1x2x2x2xi64>)
// CHECK-NEXT:    ^{{.*}}(%[[MAX:.*]]: f32, %{{.*}}: i64):
// CHECK:           %[[NC:.*]] = arith.addi
// CHECK-NEXT:      %[[BASE:.*]] = arith.muli %[[NC]], %[[PLANE]] : index
// CHECK:           %[[NONE:.*]] = arith.constant -1 : i64
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[NONE]]) -> (i64) {
// CHECK:             scf.for {{.*}} iter_args(%[[FOUND:.*]] = %{{.*}}) -> (i64) {
// CHECK:               %[[H:.*]] = arith.addi
// CHECK-NEXT:          %[[W:.*]] = arith.addi
// CHECK-NEXT:          %[[V:.*]] = memref.load %[[X]][%{{.*}}, %{{.*}}, %[[H]], %[[W]]] : memref<1x2x4x4xf32>
// CHECK:               %[[UNSET:.*]] = arith.cmpi slt, %[[FOUND]], %{{.*}} : i64
// CHECK-NEXT:          %[[EQ:.*]] = arith.cmpf oeq, %[[V]], %[[MAX]] : f32
// CHECK-NEXT:          %[[HIT:.*]] = arith.andi %[[UNSET]], %[[EQ]] : i1
// CHECK-NEXT:          %[[HT:.*]] = arith.muli %[[H]], %[[HSTRIDE]] : index
// CHECK-NEXT:          %[[P1:.*]] = arith.addi %[[BASE]], %[[HT]] : index
// CHECK-NEXT:          %[[WT:.*]] = arith.muli %[[W]], %[[WSTRIDE]] : index
// CHECK-NEXT:          %[[P2:.*]] = arith.addi %[[P1]], %[[WT]] : index
// CHECK-NEXT:          %[[P:.*]] = arith.index_cast %[[P2]] : index to i64
// CHECK-NEXT:          arith.select %[[HIT]], %[[P]], %[[FOUND]] : i64

func.func @max_pool_indices(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>) {
  %y, %i = "onnx.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, storage_order = 1 : i64}> {onnx_node_name = "pool"} : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  func.return %y, %i : tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>
}
