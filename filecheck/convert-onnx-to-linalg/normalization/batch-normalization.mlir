// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// CHECK-NOT:   sym_name = "scale"
// CHECK-DAG:   "memref.global"() <{sym_name = "bn_addend", type = memref<2xf32>, initial_value = dense<[-5.000000e-01, -1.000000e+00]> : memref<2xf32>
// CHECK-DAG:   "memref.global"() <{sym_name = "bn_multiplier", type = memref<2xf32>, initial_value = dense<1.000000e+00> : memref<2xf32>
// CHECK-LABEL: func.func @batch_normalization_folded(
// CHECK-SAME:      %[[X:.*]]: memref<1x2x3x3xf32>, %[[OUT:.*]]: memref<1x2x3x3xf32>)
// CHECK-NEXT:    %[[A:.*]] = memref.get_global @bn_multiplier
// CHECK-NEXT:    %[[B:.*]] = memref.get_global @bn_addend
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], {{.*}} ins(%[[X]], %[[A]], %[[B]] : {{.*}}) outs(%[[OUT]] : memref<1x2x3x3xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[XS:.*]]: f32, %[[AS:.*]]: f32, %[[BS:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[XS]], %[[AS]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[P]], %[[BS]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

func.func @batch_normalization_folded(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %scale = "onnx.Constant"() <{value = dense<[2.0, 1.0]> : tensor<2xf32>}> {onnx_node_name = "scale"} : () -> tensor<2xf32>
  %bias = "onnx.Constant"() <{value = dense<[0.5, -1.0]> : tensor<2xf32>}> {onnx_node_name = "bias"} : () -> tensor<2xf32>
  %mean = "onnx.Constant"() <{value = dense<[1.0, 0.0]> : tensor<2xf32>}> {onnx_node_name = "mean"} : () -> tensor<2xf32>
  %var = "onnx.Constant"() <{value = dense<[4.0, 1.0]> : tensor<2xf32>}> {onnx_node_name = "var"} : () -> tensor<2xf32>
  %y, %rm, %rv = "onnx.BatchNormalization"(%x, %scale, %bias, %mean, %var) <{epsilon = 0.0 : f32}> {onnx_node_name = "bn"} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x3x3xf32>, tensor<0xf32>, tensor<0xf32>)
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @batch_normalization_runtime(
// CHECK-SAME:      %[[X:.*]]: memref<2x3xf32>, %[[SCALE:.*]]: memref<3xf32>, %[[BIAS:.*]]: memref<3xf32>, %[[MEAN:.*]]: memref<3xf32>, %[[VAR:.*]]: memref<3xf32>, %[[OUT:.*]]: memref<2x3xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], {{.*}} ins(%[[X]], %[[SCALE]], %[[BIAS]], %[[MEAN]], %[[VAR]] : {{.*}}) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[XS:.*]]: f32, %[[SS:.*]]: f32, %[[BS:.*]]: f32, %[[MS:.*]]: f32, %[[VS:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[EPS:.*]] = arith.constant 1.000000e-05 : f32
// CHECK-NEXT:      %[[C:.*]] = arith.subf %[[XS]], %[[MS]] : f32
// CHECK-NEXT:      %[[VE:.*]] = arith.addf %[[VS]], %[[EPS]] : f32
// CHECK-NEXT:      %[[STD:.*]] = math.sqrt %[[VE]] : f32
// CHECK-NEXT:      %[[N:.*]] = arith.divf %[[C]], %[[STD]] : f32
// CHECK-NEXT:      %[[SC:.*]] = arith.mulf %[[N]], %[[SS]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[SC]], %[[BS]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32

func.func @batch_normalization_runtime(%x: tensor<2x3xf32>, %scale: tensor<3xf32>, %bias: tensor<3xf32>, %mean: tensor<3xf32>, %var: tensor<3xf32>) -> tensor<2x3xf32> {
  %y, %rm, %rv = "onnx.BatchNormalization"(%x, %scale, %bias, %mean, %var) {onnx_node_name = "bn"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<0xf32>, tensor<0xf32>)
  func.return %y : tensor<2x3xf32>
}

// -----

// Training mode: the batch's mean and population variance per channel (over
// axes 0 and 2, in float for float16), the running statistics from them,
// then Y from the mean and 1 / sqrt(variance + epsilon).

// CHECK-LABEL: func.func @batch_normalization_training(
// CHECK-SAME:      %[[X:.*]]: memref<2x3x4xf16>, %[[SCALE:.*]]: memref<3xf16>, %[[BIAS:.*]]: memref<3xf16>, %[[MEAN:.*]]: memref<3xf32>, %[[VAR:.*]]: memref<3xf32>, %[[Y:.*]]: memref<2x3x4xf16>, %[[RM:.*]]: memref<3xf32>, %[[RV:.*]]: memref<3xf32>)
// CHECK:         %[[SUM:.*]] = memref.alloc() : memref<3xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]] : {{.*}}) outs(%[[SUM]] : memref<3xf32>)
// CHECK:           arith.constant 8.000000e+00 : f32
// CHECK:         %[[SPREAD:.*]] = memref.alloc() : memref<3xf32>
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]], %[[SUM]] : {{.*}}) outs(%[[SPREAD]] : memref<3xf32>)
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:           arith.constant 8.000000e+00 : f32
// CHECK:         linalg.generic {{.*}} ins(%[[MEAN]], %[[SUM]] : {{.*}}) outs(%[[RM]] : memref<3xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[GIVEN:.*]]: f32, %[[CURRENT:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.constant 7.500000e-01 : f32
// CHECK-NEXT:      %[[KEPT:.*]] = arith.mulf %[[GIVEN]], %[[M]] : f32
// CHECK-NEXT:      %[[ONE_M:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-NEXT:      %[[ADDED:.*]] = arith.mulf %[[CURRENT]], %[[ONE_M]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[KEPT]], %[[ADDED]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[VAR]], %[[SPREAD]] : {{.*}}) outs(%[[RV]] : memref<3xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[SPREAD]] : memref<3xf32>)
// CHECK:           math.sqrt
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[SUM]], %[[SPREAD]], %[[SCALE]], %[[BIAS]] : {{.*}}) outs(%[[Y]] : memref<2x3x4xf16>)
// CHECK:           arith.subf
// CHECK:           arith.truncf {{.*}} : f32 to f16

func.func @batch_normalization_training(%x: tensor<2x3x4xf16>, %scale: tensor<3xf16>, %bias: tensor<3xf16>, %mean: tensor<3xf32>, %var: tensor<3xf32>) -> (tensor<2x3x4xf16>, tensor<3xf32>, tensor<3xf32>) {
  %y, %rm, %rv = "onnx.BatchNormalization"(%x, %scale, %bias, %mean, %var) <{momentum = 0.75 : f32, training_mode = 1 : i64}> {onnx_node_name = "bn"} : (tensor<2x3x4xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf16>, tensor<3xf32>, tensor<3xf32>)
  func.return %y, %rm, %rv : tensor<2x3x4xf16>, tensor<3xf32>, tensor<3xf32>
}
