// RUN: xdsl-opt -p convert-onnx-to-linalg %s | filecheck %s

// kernel.qaverage_pool is AveragePool's one generic over the output: each
// tap is loaded as int8 and dequantized ((x - 3) * 0.5) as the window sums
// it, the sum divided by the count (9, padding counted), then by y's scale,
// and quantized (clamp, round half to even, zero point -7) into the int8
// result. No float buffer of the input's size is allocated.
func.func @pool(%a: tensor<1x4x6x6xi8>) -> tensor<1x4x3x3xi8> {
  %q = "kernel.qaverage_pool"(%a) <{kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = 1 : i64, x_scale = 5.000000e-01 : f32, x_zero_point = 3 : i64, y_scale = 7.500000e-01 : f32, y_zero_point = -7 : i64}> {onnx_node_name = "pool"} : (tensor<1x4x6x6xi8>) -> tensor<1x4x3x3xi8>
  func.return %q : tensor<1x4x3x3xi8>
}

// CHECK-LABEL: func.func @pool
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.generic {{.*}} outs(%out0 : memref<1x4x3x3xi8>) attrs = {onnxc.comment = "QaveragePool pool"}
// CHECK:           %[[X:.*]] = memref.load %a[{{.*}}] : memref<1x4x6x6xi8>
// CHECK-NEXT:      %[[ZP:.*]] = arith.constant 3 : i8
// CHECK-NEXT:      %[[S:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT:      %[[XF:.*]] = arith.sitofp %[[X]] : i8 to f32
// CHECK-NEXT:      %[[ZF:.*]] = arith.sitofp %[[ZP]] : i8 to f32
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[XF]], %[[ZF]] : f32
// CHECK-NEXT:      %[[V:.*]] = arith.mulf %[[D]], %[[S]] : f32
// CHECK-NEXT:      arith.addf %{{.*}}, %[[V]] : f32
// CHECK:           %[[COUNT:.*]] = arith.constant 9.000000e+00 : f32
// CHECK-NEXT:      %[[AVG:.*]] = arith.divf %{{.*}}, %[[COUNT]] : f32
// CHECK-NEXT:      %[[YS:.*]] = arith.constant 7.500000e-01 : f32
// CHECK-NEXT:      arith.divf %[[AVG]], %[[YS]] : f32
// CHECK:           arith.constant -7 : i8
// CHECK:           arith.fptosi
// CHECK:           %[[Y:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK-NEXT:      linalg.yield %[[Y]] : i8
// CHECK-NOT:     memref.alloc
// CHECK:         func.return
