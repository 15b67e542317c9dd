// RUN: xdsl-opt -p convert-onnx-to-linalg --split-input-file %s | filecheck %s

func.func @hann(%n: tensor<i64>) -> tensor<?xf32, ["N"]> attributes {onnxc.input_names = ["n"], onnxc.output_names = ["y"]} {
  %r = "onnx.HannWindow"(%n) {onnx_node_name = "hann"} : (tensor<i64>) -> tensor<?xf32, ["N"]>
  func.return %r : tensor<?xf32, ["N"]>
}

// The size is read at run time; each element is 0.5 - 0.5 cos(2 pi n / N), in double.
// CHECK-LABEL: func.func @hann
// CHECK:         memref.load %{{.*}}[] {{.*}}: memref<i64>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
// CHECK:           linalg.index 0 : index
// CHECK:           %[[COS:.*]] = math.cos %{{.*}} : f64
// CHECK-NEXT:      arith.constant -5.000000e-01 : f64
// CHECK-NEXT:      %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[COS]] : f64
// CHECK-NEXT:      %[[HALF:.*]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[SCALED]], %[[HALF]] : f64
// CHECK-NEXT:      arith.truncf %[[SUM]] : f64 to f32
