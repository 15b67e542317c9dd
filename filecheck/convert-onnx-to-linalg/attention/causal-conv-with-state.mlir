// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// float16 with a bias, past_state and silu: the bias is broadcast into a
// float accumulator; the convolution reduces over the kernel (d3), reading
// position t + i of past_state ++ input (the state below 2, the input after);
// silu of the result rounded to float16; present_state is positions 5 and 6
// of the padded sequence.

func.func @causal_conv_with_state(%x: tensor<1x2x5xf16>, %w: tensor<2x1x3xf16>, %b: tensor<2xf16>, %s: tensor<1x2x2xf16>) -> (tensor<1x2x5xf16>, tensor<1x2x2xf16>) {
  %y, %ns = "onnx.CausalConvWithState"(%x, %w, %b, %s) <{activation = "silu"}> {onnx_node_name = "conv"} : (tensor<1x2x5xf16>, tensor<2x1x3xf16>, tensor<2xf16>, tensor<1x2x2xf16>) -> (tensor<1x2x5xf16>, tensor<1x2x2xf16>)
  func.return %y, %ns : tensor<1x2x5xf16>, tensor<1x2x2xf16>
}

// CHECK-LABEL: func.func @causal_conv_with_state(
// CHECK-SAME:      %[[X:[^:]*]]: memref<1x2x5xf16>, %[[W:[^:]*]]: memref<2x1x3xf16>, %[[B:[^:]*]]: memref<2xf16>, %[[S:[^:]*]]: memref<1x2x2xf16>, %[[Y:[^:]*]]: memref<1x2x5xf16>, %[[NS:[^:]*]]: memref<1x2x2xf16>)
// CHECK-DAG:     %[[HISTORY:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[LENGTH:.*]] = arith.constant 5 : index
// CHECK:         %[[ACC:.*]] = memref.alloc() : memref<1x2x5xf32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], {{.*}} ins(%[[B]] : memref<2xf16>) outs(%[[ACC]] : memref<1x2x5xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[W]] : memref<2x1x3xf16>) outs(%[[ACC]] : memref<1x2x5xf32>)
// CHECK-NEXT:    ^bb0(%[[WE:[^:]*]]: f16, %[[SUM:[^:]*]]: f32):
// CHECK-NEXT:      %[[N:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[C:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[T:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[I:.*]] = linalg.index 3 : index
// CHECK-NEXT:      %[[P:.*]] = arith.addi %[[T]], %[[I]] : index
// CHECK-NEXT:      %[[EARLY:.*]] = arith.cmpi slt, %[[P]], %[[HISTORY]] : index
// CHECK-NEXT:      %[[E:.*]] = scf.if %[[EARLY]] -> (f16) {
// CHECK-NEXT:        %[[OLD:.*]] = memref.load %[[S]][%[[N]], %[[C]], %[[P]]] : memref<1x2x2xf16>
// CHECK-NEXT:        scf.yield %[[OLD]] : f16
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[Q:.*]] = arith.subi %[[P]], %[[HISTORY]] : index
// CHECK-NEXT:        %[[NEW:.*]] = memref.load %[[X]][%[[N]], %[[C]], %[[Q]]] : memref<1x2x5xf16>
// CHECK-NEXT:        scf.yield %[[NEW]] : f16
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[EW:.*]] = arith.extf %[[E]] : f16 to f32
// CHECK-NEXT:      %[[WW:.*]] = arith.extf %[[WE]] : f16 to f32
// CHECK-NEXT:      %[[PROD:.*]] = arith.mulf %[[WW]], %[[EW]] : f32
// CHECK-NEXT:      arith.addf %[[SUM]], %[[PROD]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[ACC]] : memref<1x2x5xf32>) outs(%[[Y]] : memref<1x2x5xf16>)
// CHECK-NEXT:    ^bb0(%[[V:[^:]*]]: f32, %{{.*}}: f16):
// CHECK-NEXT:      %[[V16:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT:      %[[VR:.*]] = arith.extf %[[V16]] : f16 to f32
// CHECK-NEXT:      %[[SIGMOID:.*]] = onnxc.sigmoid %[[VR]] : f32
// CHECK-NEXT:      %[[SILU:.*]] = arith.mulf %[[VR]], %[[SIGMOID]] : f32
// CHECK-NEXT:      arith.truncf %[[SILU]] : f32 to f16
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], {{.*}} outs(%[[NS]] : memref<1x2x2xf16>)
// CHECK:           %[[K:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[END:.*]] = arith.addi %[[LENGTH]], %[[K]] : index
// CHECK-NEXT:      arith.cmpi slt, %[[END]], %[[HISTORY]] : index
