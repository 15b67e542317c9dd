// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Element i draws onnxc.uniform at counter i (row-major), with the key the
// bits of the seed 1.0 as a double; low + (high - low) * u.
func.func @random_uniform() -> tensor<2x3xf32> {
  %r = "onnx.RandomUniform"() <{shape = array<i64: 2, 3>, low = -1.0 : f32, high = 3.0 : f32, seed = 1.0 : f32}> {onnx_node_name = "u"} : () -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @random_uniform(%out0: memref<2x3xf32>)
// CHECK:         %[[THREE:.*]] = arith.constant 3 : index
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%out0 : memref<2x3xf32>) attrs =  {onnxc.comment = "RandomUniform u"}
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.muli %[[I]], %[[THREE]] : index
// CHECK-NEXT:      %[[LINEAR:.*]] = arith.addi %[[ROW]], %[[J]] : index
// CHECK-NEXT:      %[[COUNTER:.*]] = arith.index_cast %[[LINEAR]] : index to i64
// CHECK-NEXT:      %[[KEY:.*]] = arith.constant 4607182418800017408 : i64
// CHECK-NEXT:      %[[U:.*]] = onnxc.uniform %[[KEY]], %[[COUNTER]] : f32
// CHECK-NEXT:      %[[WIDTH:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT:      %[[SPREAD:.*]] = arith.mulf %[[WIDTH]], %[[U]] : f32
// CHECK-NEXT:      %[[LOW:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT:      %[[V:.*]] = arith.addf %[[LOW]], %[[SPREAD]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32

// -----

// Double outputs draw doubles; the -Like form takes the input's sizes.
func.func @random_uniform_like(%x: tensor<4xi32>) -> tensor<4xf64> {
  %r = "onnx.RandomUniformLike"(%x) <{dtype = 11 : i64, seed = 0.0 : f32}> {onnx_node_name = "u"} : (tensor<4xi32>) -> tensor<4xf64>
  func.return %r : tensor<4xf64>
}

// CHECK-LABEL: func.func @random_uniform_like(%x: memref<4xi32>, %out0: memref<4xf64>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%out0 : memref<4xf64>)
// CHECK:           %[[KEY:.*]] = arith.constant 0 : i64
// CHECK-NEXT:      onnxc.uniform %[[KEY]], %{{.*}} : f64
