// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

// Box-Muller from counters 2i and 2i + 1, computed in float and rounded
// once to float16; without a seed the key is the CRC-32 of the node's name.
func.func @random_normal() -> tensor<4xf16> {
  %r = "onnx.RandomNormal"() <{shape = array<i64: 4>, dtype = 10 : i64, mean = 1.0 : f32, scale = 2.0 : f32}> {onnx_node_name = "n"} : () -> tensor<4xf16>
  func.return %r : tensor<4xf16>
}

// CHECK-LABEL: func.func @random_normal(%out0: memref<4xf16>)
// CHECK:         linalg.generic
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[FIRST:.*]] = arith.muli %[[I]], %[[TWO]] : index
// CHECK:           %[[KEY:.*]] = arith.constant 2013832146 : i64
// CHECK-NEXT:      %[[U0:.*]] = onnxc.uniform %[[KEY]], %{{.*}} : f32
// CHECK:           %[[SECOND:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK:           %[[U1:.*]] = onnxc.uniform %{{.*}}, %{{.*}} : f32
// CHECK:           %[[REST:.*]] = arith.subf %{{.*}}, %[[U0]] : f32
// CHECK-NEXT:      %[[LOG:.*]] = math.log %[[REST]] : f32
// CHECK:           %[[SQUARE:.*]] = arith.mulf %{{.*}}, %[[LOG]] : f32
// CHECK-NEXT:      %[[RADIUS:.*]] = math.sqrt %[[SQUARE]] : f32
// CHECK:           %[[ANGLE:.*]] = arith.mulf %{{.*}}, %[[U1]] : f32
// CHECK-NEXT:      %[[COS:.*]] = math.cos %[[ANGLE]] : f32
// CHECK-NEXT:      %[[Z:.*]] = arith.mulf %[[RADIUS]], %[[COS]] : f32
// CHECK:           %[[V:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[H:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[H]] : f16

// -----

func.func @random_normal_like(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = "onnx.RandomNormalLike"(%x) <{seed = 3.0 : f32}> {onnx_node_name = "n"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %r : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @random_normal_like(%x: memref<2x2xf32>, %out0: memref<2x2xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%out0 : memref<2x2xf32>)
// CHECK-COUNT-2:   onnxc.uniform
// CHECK:           math.cos
