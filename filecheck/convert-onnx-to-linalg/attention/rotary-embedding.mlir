// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Interleaved pairs (2k, 2k + 1), the caches read at position_ids (checked in
// range, negative counting from the end).

func.func @rotary_embedding_interleaved(%x: tensor<1x2x3x8xf32>, %c: tensor<6x4xf32>, %s: tensor<6x4xf32>, %p: tensor<1x3xi64>) -> tensor<1x2x3x8xf32> {
  %y = "onnx.RotaryEmbedding"(%x, %c, %s, %p) <{interleaved = 1 : i64}> {onnx_node_name = "rope"} : (tensor<1x2x3x8xf32>, tensor<6x4xf32>, tensor<6x4xf32>, tensor<1x3xi64>) -> tensor<1x2x3x8xf32>
  func.return %y : tensor<1x2x3x8xf32>
}

// CHECK-LABEL: func.func @rotary_embedding_interleaved(
// CHECK-SAME:      %[[X:[^:]*]]: memref<1x2x3x8xf32>, %[[COS:[^:]*]]: memref<6x4xf32>, %[[SIN:[^:]*]]: memref<6x4xf32>, %[[IDS:[^:]*]]: memref<1x3xi64>, %[[Y:[^:]*]]: memref<1x2x3x8xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[X]] : memref<1x2x3x8xf32>) outs(%[[Y]] : memref<1x2x3x8xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[B:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[H:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[S:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[D:.*]] = linalg.index 3 : index
// CHECK:           %[[PAIR:.*]] = arith.shrui %[[D]], %{{.*}} : index
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK:           %[[PARTNER:.*]] = arith.select %[[FIRST]], %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      %[[OTHER:.*]] = memref.load %[[X]][%[[B]], %[[H]], %[[S]], %[[PARTNER]]] : memref<1x2x3x8xf32>
// CHECK-NEXT:      %[[RAW:.*]] = memref.load %[[IDS]][%[[B]], %[[S]]] : memref<1x3xi64>
// CHECK:           onnxc.check %{{.*}}, "RotaryEmbedding rope: position id is in range"
// CHECK-NEXT:      %[[C:.*]] = memref.load %[[COS]][%[[ROW:.*]], %[[PAIR]]] : memref<6x4xf32>
// CHECK-NEXT:      %[[SN:.*]] = memref.load %[[SIN]][%[[ROW]], %[[PAIR]]] : memref<6x4xf32>
// CHECK-NEXT:      %[[KEPT:.*]] = arith.mulf %[[C]], %[[V]] : f32
// CHECK-NEXT:      %[[TURNED:.*]] = arith.mulf %[[SN]], %[[OTHER]] : f32
// CHECK-NEXT:      %[[REAL:.*]] = arith.subf %[[KEPT]], %[[TURNED]] : f32
// CHECK-NEXT:      %[[IMAG:.*]] = arith.addf %[[TURNED]], %[[KEPT]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[FIRST]], %[[REAL]], %[[IMAG]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

// -----

// 3-D input (num_heads 2) seen as (batch, sequence, heads, head size); only
// the first 4 of 8 elements rotate (halves 0-1 and 2-3), the rest are copied;
// without position_ids the caches are indexed by (batch, sequence).

func.func @rotary_embedding_3d_partial(%x: tensor<1x3x16xf32>, %c: tensor<1x3x2xf32>, %s: tensor<1x3x2xf32>) -> tensor<1x3x16xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y = "onnx.RotaryEmbedding"(%x, %c, %s, %n) <{num_heads = 2 : i64, rotary_embedding_dim = 4 : i64}> {onnx_node_name = "rope"} : (tensor<1x3x16xf32>, tensor<1x3x2xf32>, tensor<1x3x2xf32>, none) -> tensor<1x3x16xf32>
  func.return %y : tensor<1x3x16xf32>
}

// CHECK-LABEL: func.func @rotary_embedding_3d_partial(
// CHECK-SAME:      %[[X:[^:]*]]: memref<1x3x16xf32>, %[[COS:[^:]*]]: memref<1x3x2xf32>, %{{.*}}: memref<1x3x2xf32>, %[[Y:[^:]*]]: memref<1x3x16xf32>)
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[ROTATED:.*]] = arith.constant 4 : index
// CHECK:         %[[X4:.*]] = memref.expand_shape %[[X]] {{.*}} output_shape [1, 3, 2, 8]
// CHECK-NEXT:    %[[Y4:.*]] = memref.expand_shape %[[Y]] {{.*}} output_shape [1, 3, 2, 8]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[X4]] : memref<1x3x2x8xf32>) outs(%[[Y4]] : memref<1x3x2x8xf32>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[B:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[S:.*]] = linalg.index 1 : index
// CHECK-NEXT:      linalg.index 2 : index
// CHECK-NEXT:      %[[D:.*]] = linalg.index 3 : index
// CHECK-NEXT:      %[[INSIDE:.*]] = arith.cmpi slt, %[[D]], %[[ROTATED]] : index
// CHECK-NEXT:      %[[R:.*]] = scf.if %[[INSIDE]] -> (f32) {
// CHECK-NEXT:        %[[FIRST:.*]] = arith.cmpi slt, %[[D]], %[[HALF]] : index
// CHECK-NEXT:        %[[LATER:.*]] = arith.subi %[[D]], %[[HALF]] : index
// CHECK-NEXT:        %[[PAIR:.*]] = arith.select %[[FIRST]], %[[D]], %[[LATER]] : index
// CHECK:             memref.load %[[X4]]
// CHECK-NEXT:        memref.load %[[COS]][%[[B]], %[[S]], %[[PAIR]]] : memref<1x3x2xf32>
// CHECK:             scf.yield
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %[[V]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      linalg.yield %[[R]] : f32
