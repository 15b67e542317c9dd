// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// An int32 accumulator of the output's sizes (the MatMulInteger generic), then
// requantized: round(acc * (a_scale * b_scale / y_scale)) + y_zero_point,
// saturated to int8; b's scale per column.
func.func @qmm(%a: tensor<3x4xi8>, %as: tensor<f32>, %az: tensor<i8>, %b: tensor<4x5xi8>, %bs: tensor<5xf32>, %bz: tensor<5xi8>, %ys: tensor<f32>, %yz: tensor<i8>) -> tensor<3x5xi8> {
  %y = "onnx.QLinearMatMul"(%a, %as, %az, %b, %bs, %bz, %ys, %yz) {onnx_node_name = "qmm"} : (tensor<3x4xi8>, tensor<f32>, tensor<i8>, tensor<4x5xi8>, tensor<5xf32>, tensor<5xi8>, tensor<f32>, tensor<i8>) -> tensor<3x5xi8>
  func.return %y : tensor<3x5xi8>
}

// CHECK-LABEL: func.func @qmm(
// CHECK-SAME:      %[[A:[^:]*]]: memref<3x4xi8>, %[[AS:[^:]*]]: memref<f32>, %[[AZ:[^:]*]]: memref<i8>, %[[B:[^:]*]]: memref<4x5xi8>, %[[BS:[^:]*]]: memref<5xf32>, %[[BZ:[^:]*]]: memref<5xi8>, %[[YS:[^:]*]]: memref<f32>, %[[YZ:[^:]*]]: memref<i8>, %[[OUT:[^:]*]]: memref<3x5xi8>)
// CHECK-NEXT:    %[[ACC:.*]] = memref.alloc() : memref<3x5xi32>
// CHECK:         linalg.fill {{.*}} outs(%[[ACC]] : memref<3x5xi32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]], %[[AZ]], %[[BZ]] : {{.*}}) outs(%[[ACC]] : memref<3x5xi32>)
// CHECK:           arith.muli
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[ACC]], %[[AS]], %[[BS]], %[[YS]], %[[YZ]] : {{.*}}) outs(%[[OUT]] : memref<3x5xi8>)
// CHECK-NEXT:    ^{{.*}}(%[[T:[^:]*]]: i32, %[[SA:[^:]*]]: f32, %[[SB:[^:]*]]: f32, %[[SY:[^:]*]]: f32, %[[ZY:[^:]*]]: i8, %{{.*}}: i8):
// CHECK-NEXT:      %[[SAB:.*]] = arith.mulf %[[SA]], %[[SB]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.divf %[[SAB]], %[[SY]] : f32
// CHECK-NEXT:      %[[TF:.*]] = arith.sitofp %[[T]] : i32 to f32
// CHECK-NEXT:      %[[V:.*]] = arith.mulf %[[TF]], %[[M]] : f32
// CHECK:           %[[C1:.*]] = arith.select %{{.*}}, %[[V]], %{{.*}} : f32
// CHECK:           %[[C2:.*]] = arith.select %{{.*}}, %[[C1]], %{{.*}} : f32
// CHECK:           %[[R:.*]] = arith.subf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[I:.*]] = arith.fptosi %[[R]] {onnxc.in_range} : f32 to i32
// CHECK-NEXT:      %[[ZI:.*]] = arith.extsi %[[ZY]] : i8 to i32
// CHECK-NEXT:      %[[Q:.*]] = arith.addi %[[I]], %[[ZI]] : i32
// CHECK-NEXT:      %[[Y:.*]] = arith.trunci %[[Q]] : i32 to i8
// CHECK-NEXT:      linalg.yield %[[Y]] : i8
