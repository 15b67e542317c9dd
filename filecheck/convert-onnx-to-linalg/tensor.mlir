// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @flatten(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %r = "onnx.Flatten"(%x) <{axis = 1 : i64}> {onnx_node_name = "flatten"} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  func.return %r : tensor<2x12xf32>
}

// CHECK-LABEL: func.func @flatten
// CHECK:         memref.collapse_shape %{{.*}} {{\[}}[0 : i64], [1 : i64, 2 : i64]] {onnxc.comment = "Flatten flatten"} : memref<2x3x4xf32> into memref<2x12xf32>

// -----

func.func @flatten_axis0(%x: tensor<2x3xf32>) -> tensor<1x6xf32> {
  %r = "onnx.Flatten"(%x) <{axis = 0 : i64}> {onnx_node_name = "flatten"} : (tensor<2x3xf32>) -> tensor<1x6xf32>
  func.return %r : tensor<1x6xf32>
}

// CHECK-LABEL: func.func @flatten_axis0
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64]] {{.*}} : memref<2x3xf32> into memref<6xf32>
// CHECK-NEXT:    memref.expand_shape %[[FLAT]] {{\[}}[0 : i64, 1 : i64]] output_shape [1, 6] {{.*}} : memref<6xf32> into memref<1x6xf32>

// -----

func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %s = "onnx.Constant"() <{value = dense<[4, -1]> : tensor<2xi64>}> {onnx_node_name = "shape"} : () -> tensor<2xi64>
  %r = "onnx.Reshape"(%x, %s) {onnx_node_name = "reshape"} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  func.return %r : tensor<4x6xf32>
}

// CHECK-LABEL: func.func @reshape
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64, 2 : i64]] {{.*}} : memref<2x3x4xf32> into memref<24xf32>
// CHECK-NEXT:    memref.expand_shape %[[FLAT]] {{\[}}[0 : i64, 1 : i64]] output_shape [4, 6] {onnxc.comment = "Reshape reshape"} : memref<24xf32> into memref<4x6xf32>

// -----

func.func @reshape_zero(%x: tensor<2x3x4xf32>) -> tensor<2x3x2x2xf32> {
  %s = "onnx.Constant"() <{value = dense<[0, 0, 2, -1]> : tensor<4xi64>}> {onnx_node_name = "shape"} : () -> tensor<4xi64>
  %r = "onnx.Reshape"(%x, %s) {onnx_node_name = "reshape"} : (tensor<2x3x4xf32>, tensor<4xi64>) -> tensor<2x3x2x2xf32>
  func.return %r : tensor<2x3x2x2xf32>
}

// CHECK-LABEL: func.func @reshape_zero
// CHECK:         memref.expand_shape %{{.*}} {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64]] output_shape [2, 3, 2, 2] {{.*}} : memref<2x3x4xf32> into memref<2x3x2x2xf32>

// -----

func.func @reshape_allowzero(%x: tensor<0x4xf32>) -> tensor<4x0xf32> {
  %s = "onnx.Constant"() <{value = dense<[4, 0]> : tensor<2xi64>}> {onnx_node_name = "shape"} : () -> tensor<2xi64>
  %r = "onnx.Reshape"(%x, %s) <{allowzero = 1 : i64}> {onnx_node_name = "reshape"} : (tensor<0x4xf32>, tensor<2xi64>) -> tensor<4x0xf32>
  func.return %r : tensor<4x0xf32>
}

// CHECK-LABEL: func.func @reshape_allowzero
// CHECK:         %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{.*}} : memref<0x4xf32> into memref<0xf32>
// CHECK-NEXT:    memref.expand_shape %[[FLAT]] {{.*}} : memref<0xf32> into memref<4x0xf32>

// -----

func.func @reshape_to_scalar(%x: tensor<1x1xf32>) -> tensor<f32> {
  %s = "onnx.Constant"() <{value = dense<> : tensor<0xi64>}> {onnx_node_name = "shape"} : () -> tensor<0xi64>
  %r = "onnx.Reshape"(%x, %s) {onnx_node_name = "reshape"} : (tensor<1x1xf32>, tensor<0xi64>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// CHECK-LABEL: func.func @reshape_to_scalar
// CHECK:         memref.collapse_shape %{{.*}} [] {{.*}} : memref<1x1xf32> into memref<f32>

// -----

func.func @squeeze(%x: tensor<1x3x1x4xf32>) -> tensor<3x1x4xf32> {
  %a = "onnx.Constant"() <{value = dense<[0]> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.Squeeze"(%x, %a) {onnx_node_name = "squeeze"} : (tensor<1x3x1x4xf32>, tensor<1xi64>) -> tensor<3x1x4xf32>
  func.return %r : tensor<3x1x4xf32>
}

// CHECK-LABEL: func.func @squeeze
// CHECK:         memref.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64], [2 : i64], [3 : i64]] {onnxc.comment = "Squeeze squeeze"} : memref<1x3x1x4xf32> into memref<3x1x4xf32>

// -----

func.func @squeeze_all(%x: tensor<1x3x1x4xf32>) -> tensor<3x4xf32> {
  %n = "onnx.NoValue"() : () -> none
  %r = "onnx.Squeeze"(%x, %n) {onnx_node_name = "squeeze"} : (tensor<1x3x1x4xf32>, none) -> tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}

// CHECK-LABEL: func.func @squeeze_all
// CHECK:         memref.collapse_shape %{{.*}} {{\[}}[0 : i64, 1 : i64], [2 : i64, 3 : i64]] {{.*}} : memref<1x3x1x4xf32> into memref<3x4xf32>

// -----

func.func @unsqueeze(%x: tensor<3x4xf32>) -> tensor<1x3x4x1xf32> {
  %a = "onnx.Constant"() <{value = dense<[0, -1]> : tensor<2xi64>}> {onnx_node_name = "axes"} : () -> tensor<2xi64>
  %r = "onnx.Unsqueeze"(%x, %a) {onnx_node_name = "unsqueeze"} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<1x3x4x1xf32>
  func.return %r : tensor<1x3x4x1xf32>
}

// CHECK-LABEL: func.func @unsqueeze
// CHECK:         memref.expand_shape %{{.*}} {{\[}}[0 : i64, 1 : i64], [2 : i64, 3 : i64]] output_shape [1, 3, 4, 1] {onnxc.comment = "Unsqueeze unsqueeze"} : memref<3x4xf32> into memref<1x3x4x1xf32>

// -----

func.func @unsqueeze_scalar(%x: tensor<f32>) -> tensor<1xf32> {
  %a = "onnx.Constant"() <{value = dense<[0]> : tensor<1xi64>}> {onnx_node_name = "axes"} : () -> tensor<1xi64>
  %r = "onnx.Unsqueeze"(%x, %a) {onnx_node_name = "unsqueeze"} : (tensor<f32>, tensor<1xi64>) -> tensor<1xf32>
  func.return %r : tensor<1xf32>
}

// CHECK-LABEL: func.func @unsqueeze_scalar
// CHECK:         memref.expand_shape %{{.*}} [] output_shape [1] {{.*}} : memref<f32> into memref<1xf32>

// -----

func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %r = "onnx.Transpose"(%x) <{perm = array<i64: 2, 0, 1>}> {onnx_node_name = "transpose"} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  func.return %r : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2, d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : memref<2x3x4xf32>) outs(%[[OUT:.*]] : memref<4x2x3xf32>) attrs = {onnxc.comment = "Transpose transpose"}
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32

// -----

func.func @transpose_default(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %r = "onnx.Transpose"(%x) {onnx_node_name = "transpose"} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %r : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @transpose_default
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>]

// -----

func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>, %c: tensor<2x2xf32>) -> tensor<2x6xf32> {
  %r = "onnx.Concat"(%a, %b, %c) <{axis = -1 : i64}> {onnx_node_name = "concat"} : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x6xf32>
  func.return %r : tensor<2x6xf32>
}

// CHECK-LABEL: func.func @concat
// CHECK-SAME:    (%[[A:.*]]: memref<2x3xf32>, %[[B:.*]]: memref<2x1xf32>, %[[C:.*]]: memref<2x2xf32>, %[[OUT:.*]]: memref<2x6xf32>)
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, (d1 + 0))>], iterator_types = ["parallel", "parallel"]} ins(%[[A]] : memref<2x3xf32>) outs(%[[OUT]] : memref<2x6xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, (d1 + 3))>], iterator_types = ["parallel", "parallel"]} ins(%[[B]] : memref<2x1xf32>) outs(%[[OUT]] : memref<2x6xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, (d1 + 4))>], iterator_types = ["parallel", "parallel"]} ins(%[[C]] : memref<2x2xf32>) outs(%[[OUT]] : memref<2x6xf32>)

// -----

func.func @slice(%x: tensor<5x6xf32>) -> tensor<2x3xf32> {
  %starts = "onnx.Constant"() <{value = dense<[1, -1]> : tensor<2xi64>}> {onnx_node_name = "starts"} : () -> tensor<2xi64>
  %ends = "onnx.Constant"() <{value = dense<[9223372036854775807, -9223372036854775808]> : tensor<2xi64>}> {onnx_node_name = "ends"} : () -> tensor<2xi64>
  %axes = "onnx.Constant"() <{value = dense<[0, 1]> : tensor<2xi64>}> {onnx_node_name = "axes"} : () -> tensor<2xi64>
  %steps = "onnx.Constant"() <{value = dense<[2, -2]> : tensor<2xi64>}> {onnx_node_name = "steps"} : () -> tensor<2xi64>
  %r = "onnx.Slice"(%x, %starts, %ends, %axes, %steps) {onnx_node_name = "slice"} : (tensor<5x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @slice
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (((d0 * 2) + 1), ((d1 * -2) + 5))>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : memref<5x6xf32>) outs(%{{.*}} : memref<2x3xf32>) attrs = {onnxc.comment = "Slice slice"}

// -----

func.func @slice_default_axes(%x: tensor<5x6xf32>) -> tensor<3x6xf32> {
  %starts = "onnx.Constant"() <{value = dense<[1]> : tensor<1xi64>}> {onnx_node_name = "starts"} : () -> tensor<1xi64>
  %ends = "onnx.Constant"() <{value = dense<[-1]> : tensor<1xi64>}> {onnx_node_name = "ends"} : () -> tensor<1xi64>
  %n = "onnx.NoValue"() : () -> none
  %r = "onnx.Slice"(%x, %starts, %ends, %n, %n) {onnx_node_name = "slice"} : (tensor<5x6xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<3x6xf32>
  func.return %r : tensor<3x6xf32>
}

// CHECK-LABEL: func.func @slice_default_axes
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ((d0 + 1), d1)>, affine_map<(d0, d1) -> (d0, d1)>]

// -----

func.func @gather_scalar(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %i = "onnx.Constant"() <{value = dense<-1> : tensor<i64>}> {onnx_node_name = "index"} : () -> tensor<i64>
  %r = "onnx.Gather"(%x, %i) <{axis = 1 : i64}> {onnx_node_name = "gather"} : (tensor<3x4xf32>, tensor<i64>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}

// CHECK-LABEL: func.func @gather_scalar
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0, 3)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%{{.*}} : memref<3x4xf32>) outs(%{{.*}} : memref<3xf32>)

// -----

func.func @gather_progression(%x: tensor<6x4xf32>) -> tensor<2x2x4xf32> {
  %i = "onnx.Constant"() <{value = dense<[[4, 3], [2, -5]]> : tensor<2x2xi64>}> {onnx_node_name = "indices"} : () -> tensor<2x2xi64>
  %r = "onnx.Gather"(%x, %i) <{axis = 0 : i64}> {onnx_node_name = "gather"} : (tensor<6x4xf32>, tensor<2x2xi64>) -> tensor<2x2x4xf32>
  func.return %r : tensor<2x2x4xf32>
}

// CHECK-LABEL: func.func @gather_progression
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> ((((d0 * -2) + (d1 * -1)) + 4), d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]

// -----

func.func @gather_table(%x: tensor<3x4xf32>) -> tensor<3x3xf32> {
  %i = "onnx.Constant"() <{value = dense<[2, 0, 3]> : tensor<3xi64>}> {onnx_node_name = "indices"} : () -> tensor<3xi64>
  %r = "onnx.Gather"(%x, %i) <{axis = 1 : i64}> {onnx_node_name = "gather"} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x3xf32>
  func.return %r : tensor<3x3xf32>
}

// CHECK-LABEL: func.func @gather_table
// CHECK-SAME:    (%[[X:.*]]: memref<3x4xf32>
// CHECK:         %[[TABLE:.*]] = memref.get_global @indices : memref<3xi64>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[TABLE]] : memref<3xi64>) outs(%{{.*}} : memref<3x3xf32>)
// CHECK-NEXT:    ^bb0(%[[I:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:      %[[POS:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK:           %[[NEG:.*]] = arith.cmpi slt, %[[POS]], %{{.*}} : index
// CHECK-NEXT:      %[[WRAP:.*]] = arith.addi %[[POS]], %{{.*}} : index
// CHECK-NEXT:      %[[SEL:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[POS]] : index
// CHECK-NEXT:      %[[LO:.*]] = arith.maxsi %[[SEL]], %{{.*}} : index
// CHECK-NEXT:      %[[HI:.*]] = arith.minsi %[[LO]], %{{.*}} : index
// CHECK-NEXT:      %[[D0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[X]][%[[D0]], %[[HI]]] : memref<3x4xf32>
// CHECK-NEXT:      linalg.yield %[[V]] : f32

// -----

func.func @gather_runtime(%x: tensor<5x4xf32>, %i: tensor<2xi32>) -> tensor<2x4xf32> {
  %r = "onnx.Gather"(%x, %i) <{axis = 0 : i64}> {onnx_node_name = "gather"} : (tensor<5x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @gather_runtime
// CHECK-SAME:    (%[[X:.*]]: memref<5x4xf32>, %[[I:.*]]: memref<2xi32>
// CHECK-NEXT:    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[I]] : memref<2xi32>)
// CHECK:           arith.index_cast %{{.*}} : i32 to index
// CHECK:           memref.load %[[X]]

// -----

func.func @cast_float_to_int(%x: tensor<2x3xf32>) -> tensor<2x3xi32> {
  %r = "onnx.Cast"(%x) <{to = 6 : i64}> {onnx_node_name = "cast"} : (tensor<2x3xf32>) -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}

// CHECK-LABEL: func.func @cast_float_to_int
// CHECK:         linalg.generic
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: i32):
// CHECK-NEXT:      %[[V:.*]] = arith.fptosi %[[IN]] : f32 to i32
// CHECK-NEXT:      linalg.yield %[[V]] : i32

// -----

func.func @cast_int_to_float(%x: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %r = "onnx.Cast"(%x) <{to = 1 : i64}> {onnx_node_name = "cast"} : (tensor<2x3xi64>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @cast_int_to_float
// CHECK:           arith.sitofp %{{.*}} : i64 to f32

// -----

func.func @cast_float_to_bool(%x: tensor<2x3xf32>) -> tensor<2x3xi1> {
  %r = "onnx.Cast"(%x) <{to = 9 : i64}> {onnx_node_name = "cast"} : (tensor<2x3xf32>) -> tensor<2x3xi1>
  func.return %r : tensor<2x3xi1>
}

// CHECK-LABEL: func.func @cast_float_to_bool
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[V:.*]] = arith.cmpf une, %{{.*}}, %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : i1

// -----

func.func @cast_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "onnx.Cast"(%x) <{to = 1 : i64}> {onnx_node_name = "cast"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %r : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @cast_same_type
// CHECK-NOT:     Cast cast

// -----

func.func @gather_prefix(%x: tensor<6x4xf32>) -> tensor<3x4xf32> {
  %i = "onnx.Constant"() <{value = dense<[0, 1, 2]> : tensor<3xi64>}> {onnx_node_name = "indices"} : () -> tensor<3xi64>
  %r = "onnx.Gather"(%x, %i) <{axis = 0 : i64}> {onnx_node_name = "gather"} : (tensor<6x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  func.return %r : tensor<3x4xf32>
}

// CHECK-LABEL: func.func @gather_prefix
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ((d0 + 0), d1)>, affine_map<(d0, d1) -> (d0, d1)>]

// -----

func.func @cast_int_narrowing(%x: tensor<4xi64>) -> tensor<4xi32> {
  %r = "onnx.Cast"(%x) <{to = 6 : i64}> {onnx_node_name = "cast"} : (tensor<4xi64>) -> tensor<4xi32>
  func.return %r : tensor<4xi32>
}

// CHECK-LABEL: func.func @cast_int_narrowing
// CHECK:           arith.trunci %{{.*}} : i64 to i32

// -----

func.func @cast_bool_to_float(%x: tensor<4xi1>) -> tensor<4xf32> {
  %r = "onnx.Cast"(%x) <{to = 1 : i64}> {onnx_node_name = "cast"} : (tensor<4xi1>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @cast_bool_to_float
// CHECK:           arith.uitofp %{{.*}} : i1 to f32
