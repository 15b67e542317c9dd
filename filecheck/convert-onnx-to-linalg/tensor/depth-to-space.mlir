// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @depth_to_space(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %r = "onnx.DepthToSpace"(%x) <{blocksize = 2 : i64}> {onnx_node_name = "d2s"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  func.return %r : tensor<1x2x4x6xf32>
}

// CHECK-LABEL: func.func @depth_to_space
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, ((((d2 mod 2) * 4) + ((d3 mod 2) * 2)) + d1), (d2 floordiv 2), (d3 floordiv 2))>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}

// -----

func.func @depth_to_space_crd(%x: tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %r = "onnx.DepthToSpace"(%x) <{blocksize = 2 : i64, mode = "CRD"}> {onnx_node_name = "d2s"} : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  func.return %r : tensor<1x2x4x6xf32>
}

// CHECK-LABEL: func.func @depth_to_space_crd
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, ((d1 * 4) + (((d2 mod 2) * 2) + (d3 mod 2))), (d2 floordiv 2), (d3 floordiv 2))>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]

// -----

func.func @depth_to_space_run_time(%x: tensor<1x?x2x3xf32, ["C"]>) -> tensor<1x?x4x6xf32, ["D"]> attributes {onnxc.dims = ["C"], onnxc.input_names = ["x"], onnxc.output_names = ["y"]} {
  %r = "onnx.DepthToSpace"(%x) <{blocksize = 2 : i64}> {onnx_node_name = "d2s"} : (tensor<1x?x2x3xf32, ["C"]>) -> tensor<1x?x4x6xf32, ["D"]>
  func.return %r : tensor<1x?x4x6xf32, ["D"]>
}

// CHECK-LABEL: func.func @depth_to_space_run_time
// CHECK-SAME:    (%[[C:.*]]: index
// CHECK:         %[[DEPTH:.*]] = arith.floordivsi %[[C]], %{{.*}} : index
// CHECK:         onnxc.check %{{.*}}, "DepthToSpace d2s: the channel count is a multiple of 4"
// CHECK:         linalg.generic
// CHECK:           %[[D0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[D1:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[D2:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[D3:.*]] = linalg.index 3 : index
// CHECK-NEXT:      %{{.*}} = affine.apply affine_map<(d0, d1, d2, d3)[s0] -> (d0)> (%[[D0]], %[[D1]], %[[D2]], %[[D3]])[%[[DEPTH]]]
// CHECK-NEXT:      %{{.*}} = affine.apply affine_map<(d0, d1, d2, d3)[s0] -> ((((((d2 mod 2) * 2) + (d3 mod 2)) * s0) + d1))> (%[[D0]], %[[D1]], %[[D2]], %[[D3]])[%[[DEPTH]]]
