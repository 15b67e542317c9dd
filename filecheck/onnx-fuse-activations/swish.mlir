// RUN: xdsl-opt -p onnx-fuse-activations %s | filecheck %s

// x * Sigmoid(x), in either operand order, is one Swish (alpha 1) named
// after both nodes; the Sigmoid goes when nothing else reads it.
func.func @silu(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %s = "onnx.Sigmoid"(%x) {onnx_node_name = "sig"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %y = "onnx.Mul"(%x, %s) {onnx_node_name = "mul"} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// CHECK-LABEL: func.func @silu
// CHECK-NEXT:    %[[Y:.*]] = "onnx.Swish"(%x) <{alpha = 1.000000e+00 : f32}> {onnx_node_name = "sig+mul"}
// CHECK-NEXT:    func.return %[[Y]]

func.func @swapped(%x: tensor<3xf16>) -> tensor<3xf16> {
  %s = "onnx.Sigmoid"(%x) : (tensor<3xf16>) -> tensor<3xf16>
  %y = "onnx.Mul"(%s, %x) : (tensor<3xf16>, tensor<3xf16>) -> tensor<3xf16>
  func.return %y : tensor<3xf16>
}

// CHECK-LABEL: func.func @swapped
// CHECK-NEXT:    %[[Y:.*]] = "onnx.Swish"(%x) <{alpha = 1.000000e+00 : f32}> : (tensor<3xf16>) -> tensor<3xf16>
// CHECK-NEXT:    func.return %[[Y]]

// A Sigmoid read elsewhere too stays for that reader.
func.func @shared(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = "onnx.Sigmoid"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %y = "onnx.Mul"(%x, %s) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y, %s : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @shared
// CHECK-NEXT:    %[[S:.*]] = "onnx.Sigmoid"(%x)
// CHECK-NEXT:    %[[Y:.*]] = "onnx.Swish"(%x)
// CHECK-NEXT:    func.return %[[Y]], %[[S]]

// A gate of another tensor (a GLU) is not SiLU.
func.func @gated(%x: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  %s = "onnx.Sigmoid"(%g) : (tensor<4xf32>) -> tensor<4xf32>
  %y = "onnx.Mul"(%x, %s) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// CHECK-LABEL: func.func @gated
// CHECK-NEXT:    "onnx.Sigmoid"(%g)
// CHECK-NEXT:    "onnx.Mul"(%x,
// CHECK-NOT:     onnx.Swish
