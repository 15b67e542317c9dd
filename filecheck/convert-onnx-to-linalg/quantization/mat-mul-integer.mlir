// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// MatMul's generic over (batch, M, N, K) with the zero points as extra inputs:
// a's per row ([B, M, 1]), b's per column ([N]); (a - za) * (b - zb) in int32.
func.func @mmi(%a: tensor<2x3x4xui8>, %b: tensor<4x5xi8>, %az: tensor<2x3x1xui8>, %bz: tensor<5xi8>) -> tensor<2x3x5xi32> {
  %y = "onnx.MatMulInteger"(%a, %b, %az, %bz) {onnx_node_name = "mmi"} : (tensor<2x3x4xui8>, tensor<4x5xi8>, tensor<2x3x1xui8>, tensor<5xi8>) -> tensor<2x3x5xi32>
  func.return %y : tensor<2x3x5xi32>
}

// CHECK-LABEL: func.func @mmi(
// CHECK-SAME:      %[[A:[^:]*]]: memref<2x3x4xui8>, %[[B:[^:]*]]: memref<4x5xi8>, %[[AZ:[^:]*]]: memref<2x3x1xui8>, %[[BZ:[^:]*]]: memref<5xi8>, %[[OUT:[^:]*]]: memref<2x3x5xi32>)
// CHECK:         linalg.fill {{.*}} outs(%[[OUT]] : memref<2x3x5xi32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0)>, affine_map<(d0, d1, d2, d3) -> (d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]], %[[AZ]], %[[BZ]] : {{.*}}) outs(%[[OUT]] : memref<2x3x5xi32>)
// CHECK-NEXT:    ^{{.*}}(%[[AE:[^:]*]]: ui8, %[[BE:[^:]*]]: i8, %[[AZE:[^:]*]]: ui8, %[[BZE:[^:]*]]: i8, %[[ACC:[^:]*]]: i32):
// CHECK-NEXT:      %[[AW:.*]] = arith.extui %[[AE]] : ui8 to i32
// CHECK-NEXT:      %[[BW:.*]] = arith.extsi %[[BE]] : i8 to i32
// CHECK-NEXT:      %[[AZW:.*]] = arith.extui %[[AZE]] : ui8 to i32
// CHECK-NEXT:      %[[BZW:.*]] = arith.extsi %[[BZE]] : i8 to i32
// CHECK-NEXT:      %[[AC:.*]] = arith.subi %[[AW]], %[[AZW]] : i32
// CHECK-NEXT:      %[[BC:.*]] = arith.subi %[[BW]], %[[BZW]] : i32
// CHECK-NEXT:      %[[P:.*]] = arith.muli %[[AC]], %[[BC]] : i32
// CHECK-NEXT:      %[[R:.*]] = arith.addi %[[ACC]], %[[P]] : i32
// CHECK-NEXT:      linalg.yield %[[R]] : i32
