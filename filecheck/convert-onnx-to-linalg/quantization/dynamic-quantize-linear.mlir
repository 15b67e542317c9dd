// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// The range (starting at 0, so it includes 0) in one reduction, the scale and
// zero point in a generic without loops, then x quantized with them.
func.func @dql(%x: tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) {
  %y, %s, %z = "onnx.DynamicQuantizeLinear"(%x) {onnx_node_name = "dql"} : (tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>)
  func.return %y, %s, %z : tensor<2x3xui8>, tensor<f32>, tensor<ui8>
}

// CHECK-LABEL: func.func @dql(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xf32>, %[[Y:[^:]*]]: memref<2x3xui8>, %[[S:[^:]*]]: memref<f32>, %[[Z:[^:]*]]: memref<ui8>)
// CHECK-NEXT:    %[[LO:.*]] = memref.alloc() : memref<f32>
// CHECK-NEXT:    %[[HI:.*]] = memref.alloc() : memref<f32>
// CHECK:         linalg.fill {{.*}} outs(%[[LO]] : memref<f32>)
// CHECK:         linalg.fill {{.*}} outs(%[[HI]] : memref<f32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%[[X]] : memref<2x3xf32>) outs(%[[LO]], %[[HI]] : memref<f32>, memref<f32>)
// CHECK-NEXT:    ^{{.*}}(%[[XE:[^:]*]]: f32, %[[L:[^:]*]]: f32, %[[H:[^:]*]]: f32):
// CHECK-NEXT:      %[[L2:.*]] = arith.minimumf %[[L]], %[[XE]] : f32
// CHECK-NEXT:      %[[H2:.*]] = arith.maximumf %[[H]], %[[XE]] : f32
// CHECK-NEXT:      linalg.yield %[[L2]], %[[H2]] : f32, f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%[[LO]], %[[HI]] : memref<f32>, memref<f32>) outs(%[[S]], %[[Z]] : memref<f32>, memref<ui8>)
// CHECK-NEXT:    ^{{.*}}(%[[L:[^:]*]]: f32, %[[H:[^:]*]]: f32, %{{.*}}: f32, %{{.*}}: ui8):
// CHECK-NEXT:      %[[SPAN:.*]] = arith.subf %[[H]], %[[L]] : f32
// CHECK:           %[[EMPTY:.*]] = arith.cmpf oeq, %[[SPAN]], %{{.*}} : f32
// CHECK:           %[[STEP:.*]] = arith.divf %[[SPAN]], %{{.*}} : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[SCALE:.*]] = arith.select %[[EMPTY]], %[[ONE]], %[[STEP]] : f32
// CHECK:           %[[MS:.*]] = arith.divf %[[L]], %[[SCALE]] : f32
// CHECK-NEXT:      %[[ZP:.*]] = arith.subf %{{.*}}, %[[MS]] : f32
// CHECK:           %{{.*}} = arith.cmpf ogt, %[[ZP]], %{{.*}} : f32
// CHECK:           %[[ZI:.*]] = arith.fptosi %{{.*}} {onnxc.in_range} : f32 to i32
// CHECK-NEXT:      %[[ZQ:.*]] = arith.trunci %[[ZI]] : i32 to ui8
// CHECK-NEXT:      linalg.yield %[[SCALE]], %[[ZQ]] : f32, ui8
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[S]], %[[Z]] : memref<2x3xf32>, memref<f32>, memref<ui8>) outs(%[[Y]] : memref<2x3xui8>)
// CHECK:           arith.fptosi %{{.*}} {onnxc.in_range} : f32 to i32
// CHECK:           arith.trunci %{{.*}} : i32 to ui8
