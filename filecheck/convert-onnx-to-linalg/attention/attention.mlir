// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Grouped-query heads (4 query heads over 2 kv heads) and a causal mask: the
// scores read kv head h floordiv 2; the causal frontier is computed in the
// bodies, where the bias is needed, and never stored.

func.func @attention_gqa_causal(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x6xf32>) -> tensor<1x4x3x6xf32> {
  %n = "onnx.NoValue"() : () -> none
  %y, %pk, %pv, %qk = "onnx.Attention"(%q, %k, %v, %n, %n, %n, %n) <{is_causal = 1 : i64}> {onnx_node_name = "attention"} : (tensor<1x4x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x6xf32>, none, none, none, none) -> (tensor<1x4x3x6xf32>, none, none, none)
  func.return %y : tensor<1x4x3x6xf32>
}

// CHECK-LABEL: func.func @attention_gqa_causal(
// CHECK-SAME:      %[[Q:[^:]*]]: memref<1x4x3x8xf32>, %[[K:[^:]*]]: memref<1x2x5x8xf32>, %[[V:[^:]*]]: memref<1x2x5x6xf32>, %[[Y:[^:]*]]: memref<1x4x3x6xf32>)
// CHECK:         %[[S:.*]] = memref.alloc() : memref<1x4x3x5xf32>
// CHECK-NEXT:    %[[SCALE:.*]] = arith.constant {{.*}} 0.594603539 : f32
// CHECK:         linalg.fill {{.*}} outs(%[[S]] : memref<1x4x3x5xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, (d1 floordiv 2), d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[Q]], %[[K]] : {{.*}}) outs(%[[S]] : memref<1x4x3x5xf32>)
// CHECK-NEXT:    ^bb0(%[[QE:[^:]*]]: f32, %[[KE:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[QS:.*]] = arith.mulf %[[QE]], %[[SCALE]] : f32
// CHECK-NEXT:      %[[KS:.*]] = arith.mulf %[[KE]], %[[SCALE]] : f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[QS]], %[[KS]] : f32
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[SUM]] : f32
// The bias, added in place: 0 where key <= query, -inf after.
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%[[S]] : memref<1x4x3x5xf32>)
// CHECK:           %[[I:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[J:.*]] = linalg.index 3 : index
// CHECK-NEXT:      %[[ALLOWED:.*]] = arith.cmpi sle, %[[J]], %[[I]] : index
// CHECK:           %[[BIAS:.*]] = arith.select %[[ALLOWED]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      arith.addf %{{.*}}, %[[BIAS]] : f32
// The row maxima of the logits and of the bias, in one reduction.
// CHECK:         %[[TOP:.*]] = memref.alloc() : memref<1x4x3xf32>
// CHECK:         %[[FLOOR:.*]] = memref.alloc() : memref<1x4x3xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[S]] : memref<1x4x3x5xf32>) outs(%[[TOP]], %[[FLOOR]] : memref<1x4x3xf32>, memref<1x4x3xf32>)
// CHECK:           linalg.yield %{{.*}}, %{{.*}} : f32, f32
// exp(logit - max), a maximum of -inf shifting by 0.
// CHECK:         linalg.generic {{.*}} ins(%[[TOP]] : memref<1x4x3xf32>) outs(%[[S]] : memref<1x4x3x5xf32>)
// CHECK:           arith.cmpf oeq
// CHECK:           arith.select
// CHECK-NEXT:      arith.subf
// CHECK-NEXT:      math.exp
// CHECK:         %[[TOTAL:.*]] = memref.alloc() : memref<1x4x3xf32>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[S]] : memref<1x4x3x5xf32>) outs(%[[TOTAL]] : memref<1x4x3xf32>)
// The division, and 0 on fully masked rows.
// CHECK:         linalg.generic {{.*}} ins(%[[TOTAL]], %[[FLOOR]] : memref<1x4x3xf32>, memref<1x4x3xf32>) outs(%[[S]] : memref<1x4x3x5xf32>)
// CHECK:           arith.divf
// CHECK:           %[[MASKED:.*]] = arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      arith.select %[[MASKED]]
// P V, reading kv head h floordiv 2 again.
// CHECK:         linalg.fill {{.*}} outs(%[[Y]] : memref<1x4x3x6xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, (d1 floordiv 2), d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[S]], %[[V]] : {{.*}}) outs(%[[Y]] : memref<1x4x3x6xf32>)

// -----

// 3-D inputs are seen as (batch, sequence, heads, head size) views; with a
// past, K and V are transposed and appended to it in present_key and
// present_value, which the scores read. The boolean mask is shorter than the
// keys: read at min(key, 3), -inf past it.

func.func @attention_3d_past(%q: tensor<1x2x8xf32>, %k: tensor<1x2x8xf32>, %v: tensor<1x2x6xf32>, %m: tensor<2x4xi1>, %pk: tensor<1x2x3x4xf32>, %pv: tensor<1x2x3x3xf32>) -> (tensor<1x2x6xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x3xf32>) {
  %n = "onnx.NoValue"() : () -> none
  %y, %ok, %ov, %qk = "onnx.Attention"(%q, %k, %v, %m, %pk, %pv, %n) <{q_num_heads = 2 : i64, kv_num_heads = 2 : i64}> {onnx_node_name = "attention"} : (tensor<1x2x8xf32>, tensor<1x2x8xf32>, tensor<1x2x6xf32>, tensor<2x4xi1>, tensor<1x2x3x4xf32>, tensor<1x2x3x3xf32>, none) -> (tensor<1x2x6xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x3xf32>, none)
  func.return %y, %ok, %ov : tensor<1x2x6xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x3xf32>
}

// CHECK-LABEL: func.func @attention_3d_past(
// CHECK-SAME:      %[[Q:[^:]*]]: memref<1x2x8xf32>, %[[K:[^:]*]]: memref<1x2x8xf32>, %[[V:[^:]*]]: memref<1x2x6xf32>, %[[M:[^:]*]]: memref<2x4xi1>, %[[PK:[^:]*]]: memref<1x2x3x4xf32>, %[[PV:[^:]*]]: memref<1x2x3x3xf32>, %[[Y:[^:]*]]: memref<1x2x6xf32>, %[[OK:[^:]*]]: memref<1x2x5x4xf32>, %[[OV:[^:]*]]: memref<1x2x5x3xf32>)
// CHECK:         %[[Q4:.*]] = memref.expand_shape %[[Q]] {{\[\[}}0 : i64], [1 : i64], [2 : i64, 3 : i64]] output_shape [1, 2, 2, 4]
// CHECK:         %[[K4:.*]] = memref.expand_shape %[[K]] {{.*}} output_shape [1, 2, 2, 4]
// CHECK:         %[[KT:.*]] = memref.alloc() : memref<1x2x2x4xf32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], {{.*}} ins(%[[K4]] : memref<1x2x2x4xf32>) outs(%[[KT]] : memref<1x2x2x4xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, (d2 + 0), d3)>], {{.*}} ins(%[[PK]] : memref<1x2x3x4xf32>) outs(%[[OK]] : memref<1x2x5x4xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, (d2 + 3), d3)>], {{.*}} ins(%[[KT]] : memref<1x2x2x4xf32>) outs(%[[OK]] : memref<1x2x5x4xf32>)
// CHECK:         outs(%[[OV]] : memref<1x2x5x3xf32>)
// CHECK:         %[[S:.*]] = memref.alloc() : memref<1x2x2x5xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], {{.*}} ins(%[[Q4]], %[[OK]] : memref<1x2x2x4xf32>, memref<1x2x5x4xf32>) outs(%[[S]] : memref<1x2x2x5xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[S]] : memref<1x2x2x5xf32>)
// CHECK:           %[[I:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[J:.*]] = linalg.index 3 : index
// CHECK:           %[[LAST:.*]] = arith.minsi %[[J]], %{{.*}} : index
// CHECK-NEXT:      %[[KEEP:.*]] = memref.load %[[M]][%[[I]], %[[LAST]]] : memref<2x4xi1>
// CHECK:           %[[BIAS:.*]] = arith.select %[[KEEP]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[INSIDE:.*]] = arith.cmpi slt, %[[J]], %{{.*}} : index
// CHECK:           arith.select %[[INSIDE]], %[[BIAS]], %{{.*}} : f32
// Y is written through a (batch, sequence, heads, head size) view.
// CHECK:         %[[Y4:.*]] = memref.expand_shape %[[Y]] {{.*}} output_shape [1, 2, 2, 3]
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d3)>], {{.*}} ins(%[[S]], %[[OV]] : memref<1x2x2x5xf32>, memref<1x2x5x3xf32>) outs(%[[Y4]] : memref<1x2x2x3xf32>)

// -----

// float16: the scores and the softmax are float buffers; values are rounded
// to float16 where onnx.reference rounds them; qk_matmul_output mode 3 gets
// the probabilities.

func.func @attention_f16_probabilities(%q: tensor<1x1x2x4xf16>, %k: tensor<1x1x3x4xf16>, %v: tensor<1x1x3x4xf16>, %m: tensor<3xf16>) -> (tensor<1x1x2x4xf16>, tensor<1x1x2x3xf16>) {
  %n = "onnx.NoValue"() : () -> none
  %y, %pk, %pv, %qk = "onnx.Attention"(%q, %k, %v, %m, %n, %n, %n) <{qk_matmul_output_mode = 3 : i64, softcap = 2.0 : f32, scale = 0.25 : f32}> {onnx_node_name = "attention"} : (tensor<1x1x2x4xf16>, tensor<1x1x3x4xf16>, tensor<1x1x3x4xf16>, tensor<3xf16>, none, none, none) -> (tensor<1x1x2x4xf16>, none, none, tensor<1x1x2x3xf16>)
  func.return %y, %qk : tensor<1x1x2x4xf16>, tensor<1x1x2x3xf16>
}

// CHECK-LABEL: func.func @attention_f16_probabilities(
// CHECK-SAME:      %[[Y:[^:]*]]: memref<1x1x2x4xf16>, %[[QK:[^:]*]]: memref<1x1x2x3xf16>)
// CHECK:         %[[S:.*]] = memref.alloc() : memref<1x1x2x3xf32>
// CHECK-NEXT:    %[[SCALE:.*]] = arith.constant {{.*}} 5.000000e-01 : f16
// CHECK:         ^bb0(%[[QE:[^:]*]]: f16, %[[KE:[^:]*]]: f16, %[[ACC:[^:]*]]: f32):
// CHECK-NEXT:      %[[WIDE:.*]] = arith.extf %[[SCALE]] : f16 to f32
// CHECK-NEXT:      %[[QW:.*]] = arith.extf %[[QE]] : f16 to f32
// CHECK-NEXT:      %[[QS:.*]] = arith.mulf %[[QW]], %[[WIDE]] : f32
// CHECK-NEXT:      %[[QR:.*]] = arith.truncf %[[QS]] : f32 to f16
// Softcap: 2 tanh(s / 2), rounded; the mask is added.
// CHECK:         outs(%[[S]] : memref<1x1x2x3xf32>)
// CHECK:           %[[CAP:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      arith.divf %{{.*}}, %[[CAP]] : f32
// CHECK-NEXT:      %[[TANH:.*]] = math.tanh
// CHECK-NEXT:      arith.mulf %[[CAP]], %[[TANH]] : f32
// CHECK-NEXT:      arith.truncf
// CHECK:           memref.load %{{.*}} : memref<3xf16>
// Mode 3: the guarded probabilities, rounded to float16 into qk_matmul_output.
// CHECK:         outs(%[[S]], %[[QK]] : memref<1x1x2x3xf32>, memref<1x1x2x3xf16>)
// CHECK:           arith.divf
// CHECK:           %[[P:.*]] = arith.select
// CHECK-NEXT:      %[[P16:.*]] = arith.truncf %[[P]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[P]], %[[P16]] : f32, f16
// P V accumulates in float, rounded into Y at the end.
// CHECK:         %[[YACC:.*]] = memref.alloc() : memref<1x1x2x4xf32>
// CHECK:         outs(%[[YACC]] : memref<1x1x2x4xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[YACC]] : memref<1x1x2x4xf32>) outs(%[[Y]] : memref<1x1x2x4xf16>)
// CHECK-NEXT:    ^bb0(%[[E:[^:]*]]: f32, %{{.*}}: f16):
// CHECK-NEXT:      %[[R:.*]] = arith.truncf %[[E]] : f32 to f16
