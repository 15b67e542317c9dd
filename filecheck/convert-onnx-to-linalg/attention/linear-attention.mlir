// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// gated_delta with 2 query heads over 1 kv head: the packed inputs are seen
// as (batch, tokens, heads, head size) views; the state is present_state
// (float), initialised from past_state; loops over batch, kv head, token and
// value column m. A first pass over the key elements decays column m of the
// state by exp(g) and retrieves S^T k; a second one adds k (beta (v - S^T k))
// and sums q S for both query heads (2h and 2h + 1), scaled by 1/sqrt(4).

func.func @linear_attention_gated_delta(%q: tensor<1x3x8xf32>, %k: tensor<1x3x4xf32>, %v: tensor<1x3x6xf32>, %s: tensor<1x1x4x6xf32>, %g: tensor<1x3x1xf32>, %beta: tensor<1x3x1xf32>) -> (tensor<1x3x12xf32>, tensor<1x1x4x6xf32>) {
  %y, %ns = "onnx.LinearAttention"(%q, %k, %v, %s, %g, %beta) <{q_num_heads = 2 : i64, kv_num_heads = 1 : i64, update_rule = "gated_delta"}> {onnx_node_name = "la"} : (tensor<1x3x8xf32>, tensor<1x3x4xf32>, tensor<1x3x6xf32>, tensor<1x1x4x6xf32>, tensor<1x3x1xf32>, tensor<1x3x1xf32>) -> (tensor<1x3x12xf32>, tensor<1x1x4x6xf32>)
  func.return %y, %ns : tensor<1x3x12xf32>, tensor<1x1x4x6xf32>
}

// CHECK-LABEL: func.func @linear_attention_gated_delta(
// CHECK-SAME:      %[[Q:[^:]*]]: memref<1x3x8xf32>, %[[K:[^:]*]]: memref<1x3x4xf32>, %[[V:[^:]*]]: memref<1x3x6xf32>, %[[S:[^:]*]]: memref<1x1x4x6xf32>, %[[G:[^:]*]]: memref<1x3x1xf32>, %[[BETA:[^:]*]]: memref<1x3x1xf32>, %[[Y:[^:]*]]: memref<1x3x12xf32>, %[[NS:[^:]*]]: memref<1x1x4x6xf32>)
// CHECK-NEXT:    %[[Q4:.*]] = memref.expand_shape %[[Q]] {{.*}} output_shape [1, 3, 2, 4]
// CHECK-NEXT:    %[[K4:.*]] = memref.expand_shape %[[K]] {{.*}} output_shape [1, 3, 1, 4]
// CHECK-NEXT:    %[[V4:.*]] = memref.expand_shape %[[V]] {{.*}} output_shape [1, 3, 1, 6]
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[S]] : memref<1x1x4x6xf32>) outs(%[[NS]] : memref<1x1x4x6xf32>)
// CHECK:         %[[G4:.*]] = memref.expand_shape %[[G]] {{.*}} output_shape [1, 3, 1, 1]
// CHECK-NEXT:    %[[BETA4:.*]] = memref.expand_shape %[[BETA]] {{.*}} output_shape [1, 3, 1, 1]
// CHECK-NEXT:    %[[Y4:.*]] = memref.expand_shape %[[Y]] {{.*}} output_shape [1, 3, 2, 6]
// CHECK-NEXT:    %[[SCALE:.*]] = arith.constant {{.*}} 5.000000e-01 : f32
// CHECK:         scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:               scf.for %[[M:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:                 %[[VE:.*]] = memref.load %[[V4]][%[[N]], %[[T]], %[[H]], %[[M]]] : memref<1x3x1x6xf32>
// CHECK:                 %[[RETRIEVED:.*]] = scf.for %[[D:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[FOUND:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:              %[[OLD:.*]] = memref.load %[[NS]][%[[N]], %[[H]], %[[D]], %[[M]]] : memref<1x1x4x6xf32>
// CHECK:                   %[[GE:.*]] = memref.load %[[G4]][%[[N]], %[[T]], %{{.*}}, %{{.*}}] : memref<1x3x1x1xf32>
// CHECK-NEXT:              %[[DECAY:.*]] = math.exp %[[GE]] : f32
// CHECK-NEXT:              %[[DECAYED:.*]] = arith.mulf %[[OLD]], %[[DECAY]] : f32
// CHECK-NEXT:              memref.store %[[DECAYED]], %[[NS]][%[[N]], %[[H]], %[[D]], %[[M]]] : memref<1x1x4x6xf32>
// CHECK-NEXT:              %[[KE:.*]] = memref.load %[[K4]][%[[N]], %[[T]], %[[H]], %[[D]]] : memref<1x3x1x4xf32>
// CHECK-NEXT:              %[[KS:.*]] = arith.mulf %[[DECAYED]], %[[KE]] : f32
// CHECK-NEXT:              %[[F:.*]] = arith.addf %[[FOUND]], %[[KS]] : f32
// CHECK-NEXT:              scf.yield %[[F]] : f32
// CHECK:                 %[[RATE:.*]] = memref.load %[[BETA4]][%[[N]], %[[T]], %{{.*}}, %{{.*}}] : memref<1x3x1x1xf32>
// CHECK-NEXT:            %[[ERROR:.*]] = arith.subf %[[VE]], %[[RETRIEVED]] : f32
// CHECK-NEXT:            %[[UPDATE:.*]] = arith.mulf %[[RATE]], %[[ERROR]] : f32
// CHECK:                 %[[FIRST:.*]] = arith.muli %[[H]], %{{.*}} : index
// CHECK:                 %[[H0:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK:                 %[[H1:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK:                 %[[O0:.*]], %[[O1:.*]] = scf.for %[[D:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A0:.*]] = %{{.*}}, %[[A1:.*]] = %{{.*}}) -> (f32, f32) {
// CHECK-NEXT:              %[[CUR:.*]] = memref.load %[[NS]][%[[N]], %[[H]], %[[D]], %[[M]]] : memref<1x1x4x6xf32>
// CHECK-NEXT:              %[[KE:.*]] = memref.load %[[K4]][%[[N]], %[[T]], %[[H]], %[[D]]] : memref<1x3x1x4xf32>
// CHECK-NEXT:              %[[KU:.*]] = arith.mulf %[[KE]], %[[UPDATE]] : f32
// CHECK-NEXT:              %[[NEW:.*]] = arith.addf %[[CUR]], %[[KU]] : f32
// CHECK-NEXT:              memref.store %[[NEW]], %[[NS]][%[[N]], %[[H]], %[[D]], %[[M]]] : memref<1x1x4x6xf32>
// CHECK-NEXT:              %[[QE0:.*]] = memref.load %[[Q4]][%[[N]], %[[T]], %[[H0]], %[[D]]] : memref<1x3x2x4xf32>
// CHECK-NEXT:              %[[P0:.*]] = arith.mulf %[[QE0]], %[[NEW]] : f32
// CHECK-NEXT:              arith.addf %[[A0]], %[[P0]] : f32
// CHECK-NEXT:              %[[QE1:.*]] = memref.load %[[Q4]][%[[N]], %[[T]], %[[H1]], %[[D]]] : memref<1x3x2x4xf32>
// CHECK:                 %[[R0:.*]] = arith.mulf %[[SCALE]], %[[O0]] : f32
// CHECK-NEXT:            memref.store %[[R0]], %[[Y4]][%[[N]], %[[T]], %[[H0]], %[[M]]] : memref<1x3x2x6xf32>
// CHECK-NEXT:            %[[R1:.*]] = arith.mulf %[[SCALE]], %[[O1]] : f32
// CHECK-NEXT:            memref.store %[[R1]], %[[Y4]][%[[N]], %[[T]], %[[H1]], %[[M]]] : memref<1x3x2x6xf32>
