// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @sign_f32(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Sign"(%x) {onnx_node_name = "sign_f32"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @sign_f32(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[CMPF:.*]] = arith.cmpf olt, %[[X]], %[[C]] : f32
// CHECK-NEXT:      %[[C2:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:      %[[SELECT:.*]] = arith.select %[[CMPF]], %[[C2]], %[[X]] : f32
// CHECK-NEXT:      %[[CMPF2:.*]] = arith.cmpf ogt, %[[X]], %[[C]] : f32
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[SELECT2:.*]] = arith.select %[[CMPF2]], %[[C3]], %[[SELECT]] : f32
// CHECK-NEXT:      linalg.yield %[[SELECT2]] : f32

// -----

func.func @sign_i8(%x: tensor<2x3xi8>) -> tensor<2x3xi8> {
  %r = "onnx.Sign"(%x) {onnx_node_name = "sign_i8"} : (tensor<2x3xi8>) -> tensor<2x3xi8>
  func.return %r : tensor<2x3xi8>
}

// CHECK-LABEL: func.func @sign_i8(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: i8, %{{.*}}: i8):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 0 : i8
// CHECK-NEXT:      %[[CMPI:.*]] = arith.cmpi slt, %[[X]], %[[C]] : i8
// CHECK-NEXT:      %[[C2:.*]] = arith.constant -1 : i8
// CHECK-NEXT:      %[[SELECT:.*]] = arith.select %[[CMPI]], %[[C2]], %[[X]] : i8
// CHECK-NEXT:      %[[CMPI2:.*]] = arith.cmpi sgt, %[[X]], %[[C]] : i8
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 1 : i8
// CHECK-NEXT:      %[[SELECT2:.*]] = arith.select %[[CMPI2]], %[[C3]], %[[SELECT]] : i8
// CHECK-NEXT:      linalg.yield %[[SELECT2]] : i8
