// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @argmin(%x: tensor<2x3xi32>) -> tensor<2xi64> {
  %r = "onnx.ArgMin"(%x) <{axis = -1 : i64, keepdims = 0 : i64}> {onnx_node_name = "argmin"} : (tensor<2x3xi32>) -> tensor<2xi64>
  func.return %r : tensor<2xi64>
}

// CHECK-LABEL: func.func @argmin(
// CHECK-SAME:      %[[X:[^:]*]]: memref<2x3xi32>, %[[OUT:[^:]*]]: memref<2xi64>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : memref<2x3xi32>) outs(%{{.*}}, %[[OUT]] : memref<2xi32>, memref<2xi64>)
// CHECK:           linalg.index 1 : index
// CHECK:           %[[LT:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:      arith.ori %{{.*}}, %[[LT]] : i1

// -----

func.func @argmin_last_index(%x: tensor<2x3xf32>) -> tensor<2x1xi64> {
  %r = "onnx.ArgMin"(%x) <{axis = 1 : i64, select_last_index = 1 : i64}> {onnx_node_name = "argmin"} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  func.return %r : tensor<2x1xi64>
}

// CHECK-LABEL: func.func @argmin_last_index(
// CHECK:           arith.cmpf ole, %{{.*}}, %{{.*}} : f32
