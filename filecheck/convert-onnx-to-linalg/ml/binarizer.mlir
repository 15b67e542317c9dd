// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// CHECK-LABEL: func.func @binarizer(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[T:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[ABOVE:.*]] = arith.cmpf ogt, %[[X]], %[[T]] : f32
// CHECK:           arith.select %[[ABOVE]], %{{.*}}, %{{.*}} : f32

func.func @binarizer(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = "onnx_ml.Binarizer"(%x) <{threshold = 0.5 : f32}> {onnx_node_name = "binarizer"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
