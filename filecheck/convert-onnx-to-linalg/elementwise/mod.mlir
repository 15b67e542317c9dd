// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @mod_signed(%a: tensor<2x3xi32>, %b: tensor<3xi32>) -> tensor<2x3xi32> {
  %r = "onnx.Mod"(%a, %b) {onnx_node_name = "mod_signed"} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @mod_signed(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: i32, %[[Y:[^:]*]]: i32, %{{.*}}: i32):
// CHECK-NEXT:      %[[REMSI:.*]] = arith.remsi %[[X]], %[[Y]] : i32
// CHECK-NEXT:      %[[C:.*]] = arith.constant 0 : i32
// CHECK-NEXT:      %[[CMPI:.*]] = arith.cmpi ne, %[[REMSI]], %[[C]] : i32
// CHECK-NEXT:      %[[CMPI2:.*]] = arith.cmpi slt, %[[REMSI]], %[[C]] : i32
// CHECK-NEXT:      %[[CMPI3:.*]] = arith.cmpi slt, %[[Y]], %[[C]] : i32
// CHECK-NEXT:      %[[XORI:.*]] = arith.xori %[[CMPI2]], %[[CMPI3]] : i1
// CHECK-NEXT:      %[[ANDI:.*]] = arith.andi %[[CMPI]], %[[XORI]] : i1
// CHECK-NEXT:      %[[ADDI:.*]] = arith.addi %[[REMSI]], %[[Y]] : i32
// CHECK-NEXT:      %[[SELECT:.*]] = arith.select %[[ANDI]], %[[ADDI]], %[[REMSI]] : i32
// CHECK-NEXT:      linalg.yield %[[SELECT]] : i32

// -----

func.func @mod_unsigned(%a: tensor<2x3xui8>, %b: tensor<3xui8>) -> tensor<2x3xui8> {
  %r = "onnx.Mod"(%a, %b) {onnx_node_name = "mod_unsigned"} : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  func.return %r : tensor<2x3xui8>
}

// CHECK-LABEL: func.func @mod_unsigned(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: ui8, %[[Y:[^:]*]]: ui8, %{{.*}}: ui8):
// CHECK-NEXT:      %[[REMUI:.*]] = arith.remui %[[X]], %[[Y]] : ui8
// CHECK-NEXT:      linalg.yield %[[REMUI]] : ui8

// -----

func.func @mod_float(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Mod"(%a, %b) {onnx_node_name = "mod_float"} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @mod_float(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[REMF:.*]] = arith.remf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      %[[C:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[CMPF:.*]] = arith.cmpf une, %[[REMF]], %[[C]] : f32
// CHECK-NEXT:      %[[CMPF2:.*]] = arith.cmpf olt, %[[REMF]], %[[C]] : f32
// CHECK-NEXT:      %[[CMPF3:.*]] = arith.cmpf olt, %[[Y]], %[[C]] : f32
// CHECK-NEXT:      %[[XORI:.*]] = arith.xori %[[CMPF2]], %[[CMPF3]] : i1
// CHECK-NEXT:      %[[ANDI:.*]] = arith.andi %[[CMPF]], %[[XORI]] : i1
// CHECK-NEXT:      %[[ADDF:.*]] = arith.addf %[[REMF]], %[[Y]] : f32
// CHECK-NEXT:      %[[SELECT:.*]] = arith.select %[[ANDI]], %[[ADDF]], %[[REMF]] : f32
// CHECK-NEXT:      %[[COPYSIGN:.*]] = math.copysign %[[C]], %[[Y]] : f32
// CHECK-NEXT:      %[[SELECT2:.*]] = arith.select %[[CMPF]], %[[SELECT]], %[[COPYSIGN]] : f32
// CHECK-NEXT:      linalg.yield %[[SELECT2]] : f32

// -----

func.func @mod_fmod(%a: tensor<2x3xf64>, %b: tensor<3xf64>) -> tensor<2x3xf64> {
  %r = "onnx.Mod"(%a, %b) <{fmod = 1 : si64}> {onnx_node_name = "mod_fmod"} : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  func.return %r : tensor<2x3xf64>
}

// CHECK-LABEL: func.func @mod_fmod(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f64, %[[Y:[^:]*]]: f64, %{{.*}}: f64):
// CHECK-NEXT:      %[[REMF:.*]] = arith.remf %[[X]], %[[Y]] : f64
// CHECK-NEXT:      linalg.yield %[[REMF]] : f64

// -----

func.func @mod_fmod_signed(%a: tensor<2x3xi64>, %b: tensor<3xi64>) -> tensor<2x3xi64> {
  %r = "onnx.Mod"(%a, %b) <{fmod = 1 : si64}> {onnx_node_name = "mod_fmod_signed"} : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  func.return %r : tensor<2x3xi64>
}

// CHECK-LABEL: func.func @mod_fmod_signed(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: i64, %[[Y:[^:]*]]: i64, %{{.*}}: i64):
// CHECK-NEXT:      %[[REMSI:.*]] = arith.remsi %[[X]], %[[Y]] : i64
// CHECK-NEXT:      linalg.yield %[[REMSI]] : i64
