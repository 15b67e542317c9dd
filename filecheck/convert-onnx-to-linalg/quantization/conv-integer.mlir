// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// Conv's generic over (n, g, m, o..., c, k...) with the zero points as extra
// inputs: x's per tensor, w's per output channel (read at (g, m) of its
// [G, M/G] view); (x - zx) * (w - zw) in int32.
func.func @ci(%x: tensor<1x2x4x4xui8>, %w: tensor<3x2x3x3xui8>, %xz: tensor<ui8>, %wz: tensor<3xui8>) -> tensor<1x3x2x2xi32> {
  %y = "onnx.ConvInteger"(%x, %w, %xz, %wz) {onnx_node_name = "ci"} : (tensor<1x2x4x4xui8>, tensor<3x2x3x3xui8>, tensor<ui8>, tensor<3xui8>) -> tensor<1x3x2x2xi32>
  func.return %y : tensor<1x3x2x2xi32>
}

// CHECK-LABEL: func.func @ci(
// CHECK-SAME:      %[[X:[^:]*]]: memref<1x2x4x4xui8>, %[[W:[^:]*]]: memref<3x2x3x3xui8>, %[[XZ:[^:]*]]: memref<ui8>, %[[WZ:[^:]*]]: memref<3xui8>, %[[OUT:[^:]*]]: memref<1x3x2x2xi32>)
// CHECK:         linalg.fill {{.*}} outs(%[[OUT]] : memref<1x3x2x2xi32>)
// CHECK-NEXT:    %[[XV:.*]] = memref.expand_shape %[[X]]
// CHECK-NEXT:    %[[WV:.*]] = memref.expand_shape %[[W]]
// CHECK-NEXT:    %[[YV:.*]] = memref.expand_shape %[[OUT]]
// CHECK-NEXT:    %[[WZV:.*]] = memref.expand_shape %[[WZ]] {{\[\[}}0 : i64, 1 : i64]] output_shape [1, 3] {{.*}} : memref<3xui8> into memref<1x3xui8>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, (d3 + d6), (d4 + d7))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> ()>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[XV]], %[[WV]], %[[XZ]], %[[WZV]] : {{.*}}) outs(%[[YV]] : memref<1x1x3x2x2xi32>)
// CHECK-NEXT:    ^{{.*}}(%[[XE:[^:]*]]: ui8, %[[WE:[^:]*]]: ui8, %[[XZE:[^:]*]]: ui8, %[[WZE:[^:]*]]: ui8, %[[ACC:[^:]*]]: i32):
// CHECK-NEXT:      %[[XW:.*]] = arith.extui %[[XE]] : ui8 to i32
// CHECK-NEXT:      %[[WW:.*]] = arith.extui %[[WE]] : ui8 to i32
// CHECK-NEXT:      %[[XZW:.*]] = arith.extui %[[XZE]] : ui8 to i32
// CHECK-NEXT:      %[[WZW:.*]] = arith.extui %[[WZE]] : ui8 to i32
// CHECK-NEXT:      %[[XC:.*]] = arith.subi %[[XW]], %[[XZW]] : i32
// CHECK-NEXT:      %[[WC:.*]] = arith.subi %[[WW]], %[[WZW]] : i32
// CHECK-NEXT:      %[[P:.*]] = arith.muli %[[XC]], %[[WC]] : i32
// CHECK-NEXT:      %[[R:.*]] = arith.addi %[[ACC]], %[[P]] : i32
// CHECK-NEXT:      linalg.yield %[[R]] : i32
