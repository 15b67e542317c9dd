// RUN: xdsl-opt -p 'select-kernels{target=host-portable}' --split-input-file %s | filecheck %s

// The requantization chain between two exact-float convolutions: Mul by a
// per-channel constant, QuantizeLinear and the next DequantizeLinear run on
// the blocked sum (the multipliers reblocked to [1, C/b, 1, 1, b]), so the
// unblock and the next block fold away. The bytes have a second user that
// reads NCHW (the function's result): one unblock of the int8 tensor stays
// for it. 24 channels are blocked by 12.
func.func @requantize(%x: tensor<1x24x4x4xf32>) -> (tensor<1x24x4x4xf32>, tensor<1x24x4x4xi8>) {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<24x24x1x1xf32>}> {onnx_node_name = "w"} : () -> tensor<24x24x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %m = "onnx.Constant"() <{value = dense<[[[0.5]], [[0.25]], [[0.5]], [[0.25]], [[0.5]], [[0.25]], [[0.5]], [[0.25]], [[0.5]], [[0.25]], [[0.5]], [[0.25]], [[0.5]], [[0.25]], [[0.5]], [[0.25]], [[0.5]], [[0.25]], [[0.5]], [[0.25]], [[0.5]], [[0.25]], [[0.5]], [[0.125]]]> : tensor<24x1x1xf32>}> : () -> tensor<24x1x1xf32>
  %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %zp = "onnx.Constant"() <{value = dense<-3> : tensor<i8>}> : () -> tensor<i8>
  %c1 = "onnx.Conv"(%x, %w, %none) {onnx_node_name = "conv1"} : (tensor<1x24x4x4xf32>, tensor<24x24x1x1xf32>, none) -> tensor<1x24x4x4xf32>
  %s = "onnx.Mul"(%c1, %m) {onnx_node_name = "scale"} : (tensor<1x24x4x4xf32>, tensor<24x1x1xf32>) -> tensor<1x24x4x4xf32>
  %q = "onnx.QuantizeLinear"(%s, %one, %zp) {onnx_node_name = "quantize"} : (tensor<1x24x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x24x4x4xi8>
  %d = "onnx.DequantizeLinear"(%q, %one, %zp) {onnx_node_name = "dequantize"} : (tensor<1x24x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x24x4x4xf32>
  %c2 = "onnx.Conv"(%d, %w, %none) {onnx_node_name = "conv2"} : (tensor<1x24x4x4xf32>, tensor<24x24x1x1xf32>, none) -> tensor<1x24x4x4xf32>
  func.return %c2, %q : tensor<1x24x4x4xf32>, tensor<1x24x4x4xi8>
}

// CHECK-LABEL: func.func @requantize
// CHECK:         %[[X:.*]] = "kernel.block"(%x)
// CHECK:         %[[C1:.*]] = "kernel.conv"(%[[X]],
// CHECK-SAME:      -> tensor<1x2x4x4x12xf32>
// CHECK:         %[[M:.*]] = "onnx.Constant"() <{value = dense_resource<m_blocked> : tensor<1x2x1x1x12xf32>}>
// CHECK:         %[[S:.*]] = "onnx.Mul"(%[[C1]], %[[M]]) {onnx_node_name = "scale"} : (tensor<1x2x4x4x12xf32>, tensor<1x2x1x1x12xf32>) -> tensor<1x2x4x4x12xf32>
// CHECK:         %[[QB:.*]] = "onnx.QuantizeLinear"(%[[S]], %one, %zp) {onnx_node_name = "quantize"} : (tensor<1x2x4x4x12xf32>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4x12xi8>
// CHECK:         %[[Q:.*]] = "kernel.unblock"(%[[QB]]) {onnx_node_name = "quantize output"} : (tensor<1x2x4x4x12xi8>) -> tensor<1x24x4x4xi8>
// CHECK:         %[[D:.*]] = "onnx.DequantizeLinear"(%[[QB]], %one, %zp) {onnx_node_name = "dequantize"} : (tensor<1x2x4x4x12xi8>, tensor<f32>, tensor<i8>) -> tensor<1x2x4x4x12xf32>
// CHECK-NOT:     kernel.block
// CHECK:         %[[C2:.*]] = "kernel.conv"(%[[D]],
// CHECK:         %[[Y:.*]] = "kernel.unblock"(%[[C2]])
// CHECK:         func.return %[[Y]], %[[Q]]
// The multipliers in channel order: 0.5, 0.25, ..., 0.5, 0.125.
// CHECK:         m_blocked: "0x04000000{{(0000003f0000803e)+}}0000003f0000003e"

// -----

// A quantized residual Add of two unblocked byte tensors runs blocked too;
// so do an Add of one number and a Sub from a per-channel constant (its
// operand order kept).
func.func @residual(%x: tensor<1x8x4x4xi8>) -> tensor<1x8x4x4xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<8x8x1x1xf32>}> {onnx_node_name = "w"} : () -> tensor<8x8x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %one = "onnx.Constant"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %zp = "onnx.Constant"() <{value = dense<0> : tensor<i8>}> : () -> tensor<i8>
  %two = "onnx.Constant"() <{value = dense<2.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = "onnx.Constant"() <{value = dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]], [[7.0]], [[8.0]]]]> : tensor<1x8x1x1xf32>}> : () -> tensor<1x8x1x1xf32>
  %d = "onnx.DequantizeLinear"(%x, %one, %zp) : (tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xf32>
  %c1 = "onnx.Conv"(%d, %w, %none) {onnx_node_name = "conv1"} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>, none) -> tensor<1x8x4x4xf32>
  %q1 = "onnx.QuantizeLinear"(%c1, %one, %zp) : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xi8>
  %c2 = "onnx.Conv"(%c1, %w, %none) {onnx_node_name = "conv2"} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>, none) -> tensor<1x8x4x4xf32>
  %q2 = "onnx.QuantizeLinear"(%c2, %one, %zp) : (tensor<1x8x4x4xf32>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xi8>
  %sum = "kernel.qadd"(%q1, %one, %zp, %q2, %one, %zp, %one, %zp) {onnx_node_name = "add"} : (tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>, tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xi8>
  %f = "onnx.DequantizeLinear"(%sum, %one, %zp) : (tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8x4x4xf32>
  %plus = "onnx.Add"(%two, %f) : (tensor<1xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %y = "onnx.Sub"(%c, %plus) {onnx_node_name = "sub"} : (tensor<1x8x1x1xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %y : tensor<1x8x4x4xf32>
}

// CHECK-LABEL: func.func @residual
// CHECK:         %[[C1:.*]] = "kernel.conv"
// CHECK:         %[[Q1:.*]] = "onnx.QuantizeLinear"(%[[C1]], %one, %zp) {{.*}} -> tensor<1x1x4x4x8xi8>
// CHECK:         %[[C2:.*]] = "kernel.conv"(%[[C1]],
// CHECK:         %[[Q2:.*]] = "onnx.QuantizeLinear"(%[[C2]], %one, %zp) {{.*}} -> tensor<1x1x4x4x8xi8>
// CHECK:         %[[SUM:.*]] = "kernel.qadd"(%[[Q1]], %one, %zp, %[[Q2]], %one, %zp, %one, %zp) {{.*}} -> tensor<1x1x4x4x8xi8>
// CHECK:         %[[F:.*]] = "onnx.DequantizeLinear"(%[[SUM]], %one, %zp) {{.*}} -> tensor<1x1x4x4x8xf32>
// CHECK:         %[[PLUS:.*]] = "onnx.Add"(%two, %[[F]]) : (tensor<1xf32>, tensor<1x1x4x4x8xf32>) -> tensor<1x1x4x4x8xf32>
// CHECK:         %[[C:.*]] = "onnx.Constant"() <{value = dense<{{\[\[\[\[\[}}1.000000e+00, 2.000000e+00, {{.*}}, 8.000000e+00]]]]]> : tensor<1x1x1x1x8xf32>}>
// CHECK:         %[[SUB:.*]] = "onnx.Sub"(%[[C]], %[[PLUS]]) {{.*}} -> tensor<1x1x4x4x8xf32>
// CHECK:         %[[Y:.*]] = "kernel.unblock"(%[[SUB]]) {onnx_node_name = "sub output"}
// CHECK:         func.return %[[Y]]

// -----

// What stays NCHW: an operand that is not a constant (the input), a
// per-axis QuantizeLinear (a rank-1 scale), an operand broadcast up to the
// result (the Mul before it, of one pixel, is elementwise and moves), and a
// channel count whose block has padding lanes (18 channels are blocked by
// 16 on this target).
func.func @kept(%x: tensor<1x8x4x4xf32>, %v: tensor<1x18x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xi8>, tensor<1x8x4x4xf32>, tensor<1x18x4x4xf32>) {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<8x8x1x1xf32>}> {onnx_node_name = "w"} : () -> tensor<8x8x1x1xf32>
  %w1 = "onnx.Constant"() <{value = dense<0.5> : tensor<8x8x4x4xf32>}> {onnx_node_name = "w1"} : () -> tensor<8x8x4x4xf32>
  %w18 = "onnx.Constant"() <{value = dense<0.5> : tensor<18x18x1x1xf32>}> {onnx_node_name = "w18"} : () -> tensor<18x18x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %scales = "onnx.Constant"() <{value = dense<1.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %zps = "onnx.Constant"() <{value = dense<0> : tensor<8xi8>}> : () -> tensor<8xi8>
  %two = "onnx.Constant"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %c = "onnx.Conv"(%x, %w, %none) {onnx_node_name = "conv"} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>, none) -> tensor<1x8x4x4xf32>
  %a = "onnx.Mul"(%c, %x) {onnx_node_name = "mul_input"} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %c3 = "onnx.Conv"(%x, %w, %none) {onnx_node_name = "conv3"} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>, none) -> tensor<1x8x4x4xf32>
  %q = "onnx.QuantizeLinear"(%c3, %scales, %zps) {onnx_node_name = "per_axis"} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xi8>) -> tensor<1x8x4x4xi8>
  %p = "onnx.Conv"(%x, %w1, %none) {onnx_node_name = "pixel"} : (tensor<1x8x4x4xf32>, tensor<8x8x4x4xf32>, none) -> tensor<1x8x1x1xf32>
  %b = "onnx.Mul"(%p, %two) {onnx_node_name = "broadcast"} : (tensor<1x8x1x1xf32>, tensor<f32>) -> tensor<1x8x1x1xf32>
  %e = "onnx.Add"(%b, %x) {onnx_node_name = "expand"} : (tensor<1x8x1x1xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %c18 = "onnx.Conv"(%v, %w18, %none) {onnx_node_name = "conv18"} : (tensor<1x18x4x4xf32>, tensor<18x18x1x1xf32>, none) -> tensor<1x18x4x4xf32>
  %m18 = "onnx.Mul"(%c18, %two) {onnx_node_name = "padded"} : (tensor<1x18x4x4xf32>, tensor<f32>) -> tensor<1x18x4x4xf32>
  func.return %a, %q, %e, %m18 : tensor<1x8x4x4xf32>, tensor<1x8x4x4xi8>, tensor<1x8x4x4xf32>, tensor<1x18x4x4xf32>
}

// CHECK-LABEL: func.func @kept
// CHECK:         "onnx.Mul"({{.*}}, %x) {onnx_node_name = "mul_input"} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
// CHECK:         "onnx.QuantizeLinear"({{.*}}) {onnx_node_name = "per_axis"} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xi8>)
// CHECK:         "onnx.Mul"({{.*}}) {onnx_node_name = "broadcast"} : (tensor<1x1x1x1x8xf32>, tensor<f32>)
// CHECK:         "onnx.Add"({{.*}}, %x) {onnx_node_name = "expand"} : (tensor<1x8x1x1xf32>, tensor<1x8x4x4xf32>)
// CHECK:         "onnx.Mul"({{.*}}, %two) {onnx_node_name = "padded"} : (tensor<1x18x4x4xf32>, tensor<f32>)

// -----

// A SiLU between two convolutions (x * Sigmoid(x)): the Sigmoid, and the Mul
// of two blocked values, run blocked; the convolutions pass the layout on.
// A Relu after a kernel still fuses into it first.
func.func @silu(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<8x8x1x1xf32>}> {onnx_node_name = "w"} : () -> tensor<8x8x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %c1 = "onnx.Conv"(%x, %w, %none) {onnx_node_name = "conv1"} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>, none) -> tensor<1x8x4x4xf32>
  %s = "onnx.Sigmoid"(%c1) {onnx_node_name = "sigmoid"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %m = "onnx.Mul"(%c1, %s) {onnx_node_name = "silu"} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %c2 = "onnx.Conv"(%m, %w, %none) {onnx_node_name = "conv2"} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>, none) -> tensor<1x8x4x4xf32>
  %r = "onnx.Relu"(%c2) {onnx_node_name = "relu"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  func.return %r : tensor<1x8x4x4xf32>
}

// CHECK-LABEL: func.func @silu
// CHECK:         %[[C1:.*]] = "kernel.conv"
// CHECK-NEXT:    %[[S:.*]] = "onnx.Sigmoid"(%[[C1]]) {onnx_node_name = "sigmoid"} : (tensor<1x1x4x4x8xf32>) -> tensor<1x1x4x4x8xf32>
// CHECK-NEXT:    %[[M:.*]] = "onnx.Mul"(%[[C1]], %[[S]]) {onnx_node_name = "silu"} : (tensor<1x1x4x4x8xf32>, tensor<1x1x4x4x8xf32>) -> tensor<1x1x4x4x8xf32>
// CHECK-NOT:     kernel.block
// CHECK:         %[[C2:.*]] = "kernel.conv"(%[[M]], {{.*}}activation = "Relu"{{.*}}onnx_node_name = "conv2+relu"
// CHECK-NEXT:    %[[Y:.*]] = "kernel.unblock"(%[[C2]])
// CHECK-NOT:     onnx.Relu
// CHECK:         func.return %[[Y]]

// -----

// A Squeeze-and-Excitation block: the gate (convolutions of the pooled
// image, a Sigmoid) is one pixel per channel, and the Mul that broadcasts
// it over the image runs on the blocked values; so does a Concat along the
// channels of two results in blocks of one size (16 + 16 channels, blocks
// of 16), which the next convolution then reads with no reorder.
func.func @excite(%x: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %w = "onnx.Constant"() <{value = dense<0.5> : tensor<16x16x1x1xf32>}> {onnx_node_name = "w"} : () -> tensor<16x16x1x1xf32>
  %w32 = "onnx.Constant"() <{value = dense<0.5> : tensor<16x32x1x1xf32>}> {onnx_node_name = "w32"} : () -> tensor<16x32x1x1xf32>
  %none = "onnx.NoValue"() : () -> none
  %c = "onnx.Conv"(%x, %w, %none) {onnx_node_name = "conv"} : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>, none) -> tensor<1x16x4x4xf32>
  %p = "onnx.GlobalAveragePool"(%c) {onnx_node_name = "pool"} : (tensor<1x16x4x4xf32>) -> tensor<1x16x1x1xf32>
  %e = "onnx.Conv"(%p, %w, %none) {onnx_node_name = "expand"} : (tensor<1x16x1x1xf32>, tensor<16x16x1x1xf32>, none) -> tensor<1x16x1x1xf32>
  %g = "onnx.Sigmoid"(%e) {onnx_node_name = "gate"} : (tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %m = "onnx.Mul"(%c, %g) {onnx_node_name = "excite"} : (tensor<1x16x4x4xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x4x4xf32>
  %d = "onnx.Conv"(%x, %w, %none) {onnx_node_name = "other"} : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>, none) -> tensor<1x16x4x4xf32>
  %cat = "onnx.Concat"(%m, %d) <{axis = -3 : i64}> {onnx_node_name = "cat"} : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x32x4x4xf32>
  %y = "onnx.Conv"(%cat, %w32, %none) {onnx_node_name = "after"} : (tensor<1x32x4x4xf32>, tensor<16x32x1x1xf32>, none) -> tensor<1x16x4x4xf32>
  func.return %y : tensor<1x16x4x4xf32>
}

// CHECK-LABEL: func.func @excite
// CHECK:         %[[C:.*]] = "kernel.conv"({{.*}}onnx_node_name = "conv"
// CHECK:         %[[P:.*]] = "kernel.pool"(%[[C]])
// CHECK:         %[[E:.*]] = "kernel.conv"(%[[P]], {{.*}}activation = "Sigmoid"{{.*}}onnx_node_name = "expand+gate"
// CHECK:         %[[M:.*]] = "onnx.Mul"(%[[C]], %[[E]]) {onnx_node_name = "excite"} : (tensor<1x1x4x4x16xf32>, tensor<1x1x1x1x16xf32>) -> tensor<1x1x4x4x16xf32>
// CHECK:         %[[D:.*]] = "kernel.conv"({{.*}}onnx_node_name = "other"
// CHECK:         %[[CAT:.*]] = "onnx.Concat"(%[[M]], %[[D]]) <{axis = 1 : i64}> {onnx_node_name = "cat"} : (tensor<1x1x4x4x16xf32>, tensor<1x1x4x4x16xf32>) -> tensor<1x2x4x4x16xf32>
// CHECK-NOT:     kernel.block
// CHECK:         "kernel.conv"(%[[CAT]], {{.*}}onnx_node_name = "after"
