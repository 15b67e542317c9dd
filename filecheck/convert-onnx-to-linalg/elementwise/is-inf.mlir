// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @is_inf(%x: tensor<2x3xf64>) -> tensor<2x3xi1> {
  %r = "onnx.IsInf"(%x) {onnx_node_name = "is_inf"} : (tensor<2x3xf64>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @is_inf(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f64, %{{.*}}: i1):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 0xfff0000000000000 : f64
// CHECK-NEXT:      %[[CMPF:.*]] = arith.cmpf oeq, %[[X]], %[[C]] : f64
// CHECK-NEXT:      %[[C2:.*]] = arith.constant 0x7ff0000000000000 : f64
// CHECK-NEXT:      %[[CMPF2:.*]] = arith.cmpf oeq, %[[X]], %[[C2]] : f64
// CHECK-NEXT:      %[[ORI:.*]] = arith.ori %[[CMPF]], %[[CMPF2]] : i1
// CHECK-NEXT:      linalg.yield %[[ORI]] : i1

// -----

func.func @is_inf_negative(%x: tensor<2x3xf32>) -> tensor<2x3xi1> {
  %r = "onnx.IsInf"(%x) <{detect_positive = 0 : si64}> {onnx_node_name = "is_inf_negative"} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @is_inf_negative(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: i1):
// CHECK-NEXT:      %[[C:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:      %[[CMPF:.*]] = arith.cmpf oeq, %[[X]], %[[C]] : f32
// CHECK-NEXT:      linalg.yield %[[CMPF]] : i1

// -----

func.func @is_inf_none(%x: tensor<2x3xf32>) -> tensor<2x3xi1> {
  %r = "onnx.IsInf"(%x) <{detect_positive = 0 : si64, detect_negative = 0 : si64}> {onnx_node_name = "is_inf_none"} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @is_inf_none(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[X:[^:]*]]: f32, %{{.*}}: i1):
// CHECK-NEXT:      %[[C:.*]] = arith.constant false
// CHECK-NEXT:      linalg.yield %[[C]] : i1
