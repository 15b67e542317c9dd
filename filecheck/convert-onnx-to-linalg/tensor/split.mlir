// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @split(%x: tensor<4x6xf32>) -> (tensor<4x2xf32>, tensor<4x4xf32>) {
  %s = "onnx.Constant"() <{value = dense<[2, 4]> : tensor<2xi64>}> {onnx_node_name = "sizes"} : () -> tensor<2xi64>
  %a, %b = "onnx.Split"(%x, %s) <{axis = 1 : i64}> {onnx_node_name = "split"} : (tensor<4x6xf32>, tensor<2xi64>) -> (tensor<4x2xf32>, tensor<4x4xf32>)
  func.return %a, %b : tensor<4x2xf32>, tensor<4x4xf32>
}

// CHECK-LABEL: func.func @split
// CHECK-SAME:    (%[[X:.*]]: memref<4x6xf32>, %[[A:.*]]: memref<4x2xf32>, %[[B:.*]]: memref<4x4xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, (d1 + 0))>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : memref<4x6xf32>) outs(%[[A]] : memref<4x2xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, (d1 + 2))>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : memref<4x6xf32>) outs(%[[B]] : memref<4x4xf32>)

// -----

func.func @split_run_time(%x: tensor<?x4xf32, ["N"]>) -> (tensor<?x4xf32, ["P"]>, tensor<?x4xf32, ["Q"]>) attributes {onnxc.dims = ["N"], onnxc.input_names = ["x"], onnxc.output_names = ["a", "b"]} {
  %n = "onnx.NoValue"() : () -> none
  %a, %b = "onnx.Split"(%x, %n) <{axis = 0 : i64, num_outputs = 2 : i64}> {onnx_node_name = "split"} : (tensor<?x4xf32, ["N"]>, none) -> (tensor<?x4xf32, ["P"]>, tensor<?x4xf32, ["Q"]>)
  func.return %a, %b : tensor<?x4xf32, ["P"]>, tensor<?x4xf32, ["Q"]>
}

// CHECK-LABEL: func.func @split_run_time
// CHECK-SAME:    (%[[N:.*]]: index
// CHECK:         %[[CHUNK:.*]] = arith.ceildivsi %[[N]], %{{.*}} : index
// CHECK:         %[[LAST:.*]] = arith.subi %[[N]], %[[CHUNK]] : index
// CHECK:         onnxc.check %{{.*}}, "Split split: the last piece is not negative"
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ((d0 + 0), d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-NEXT:    ^bb0(%{{.*}}: f32):
// CHECK-NEXT:      %[[D0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[D1:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.addi %[[CHUNK]], %[[D0]] : index
// CHECK-NEXT:      memref.load %{{.*}}[%[[ROW]], %[[D1]]]
