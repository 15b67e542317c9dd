// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @shrink(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Shrink"(%x) <{lambd = 1.000000e+00 : f32, bias = 5.000000e-01 : f32}> {onnx_node_name = "shrink"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @shrink(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[NEGF:.*]] = arith.negf %[[C]] : f32
// CHECK-NEXT:      %[[CMPF:.*]] = arith.cmpf olt, %[[X]], %[[NEGF]] : f32
// CHECK-NEXT:      %[[CMPF2:.*]] = arith.cmpf ogt, %[[X]], %[[C]] : f32
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[SUBF:.*]] = arith.subf %[[X]], %[[C2]] : f32
// CHECK-NEXT:      %[[SELECT:.*]] = arith.select %[[CMPF2]], %[[SUBF]], %[[C3]] : f32
// CHECK-NEXT:      %[[ADDF:.*]] = arith.addf %[[X]], %[[C2]] : f32
// CHECK-NEXT:      %[[SELECT2:.*]] = arith.select %[[CMPF]], %[[ADDF]], %[[SELECT]] : f32
// CHECK-NEXT:      linalg.yield %[[SELECT2]] : f32

// -----

func.func @shrink_i8(%x: tensor<2x3xi8>) -> tensor<2x3xi8> {
  %r = "onnx.Shrink"(%x) {onnx_node_name = "shrink_i8"} : (tensor<2x3xi8>) -> tensor<2x3xi8>
  func.return %r : tensor<2x3xi8>
}

// CHECK-LABEL: func.func @shrink_i8(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: i8, %{{.*}}: i8):
// CHECK-NEXT:      %[[SITOFP:.*]] = arith.sitofp %[[X]] : i8 to f64
// CHECK-NEXT:      %[[C:.*]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      %[[NEGF:.*]] = arith.negf %[[C]] : f64
// CHECK-NEXT:      %[[CMPF:.*]] = arith.cmpf olt, %[[SITOFP]], %[[NEGF]] : f64
// CHECK-NEXT:      %[[CMPF2:.*]] = arith.cmpf ogt, %[[SITOFP]], %[[C]] : f64
// CHECK-NEXT:      %[[C3:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:      %[[SUBF:.*]] = arith.subf %[[SITOFP]], %[[C2]] : f64
// CHECK-NEXT:      %[[SELECT:.*]] = arith.select %[[CMPF2]], %[[SUBF]], %[[C3]] : f64
// CHECK-NEXT:      %[[ADDF:.*]] = arith.addf %[[SITOFP]], %[[C2]] : f64
// CHECK-NEXT:      %[[SELECT2:.*]] = arith.select %[[CMPF]], %[[ADDF]], %[[SELECT]] : f64
// CHECK-NEXT:      %[[FPTOSI:.*]] = arith.fptosi %[[SELECT2]] : f64 to i8
// CHECK-NEXT:      linalg.yield %[[FPTOSI]] : i8
