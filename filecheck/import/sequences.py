# RUN: %python %s | filecheck %s
# Sequences known at compile time import as the tensors they hold: the
# sequence input `s` (two tensors, by `shapes`) becomes the inputs s[0] and
# s[1]; SequenceInsert at the constant position 1 and SequenceAt at -1 pick a
# tensor (an Identity), ConcatFromSequence is a Concat, SequenceLength a
# constant; the sequence output `parts` is one output per tensor.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxc.frontend import import_model

value = helper.make_tensor_value_info
sequence = helper.make_tensor_sequence_value_info
graph = helper.make_graph(
    [
        helper.make_node("SequenceInsert", ["s", "x", "one"], ["t"]),
        helper.make_node("SequenceAt", ["t", "last"], ["picked"]),
        helper.make_node("ConcatFromSequence", ["t"], ["joined"], axis=0),
        helper.make_node("SequenceLength", ["t"], ["n"]),
        helper.make_node("SplitToSequence", ["x"], ["parts"], axis=0, keepdims=0),
    ],
    "g",
    [sequence("s", TensorProto.FLOAT, [2]), value("x", TensorProto.FLOAT, [2])],
    [
        value("picked", TensorProto.FLOAT, [2]),
        value("joined", TensorProto.FLOAT, [6]),
        value("n", TensorProto.INT64, []),
        sequence("parts", TensorProto.FLOAT, []),
    ],
    [
        numpy_helper.from_array(np.array(1, np.int64), "one"),
        numpy_helper.from_array(np.array(-1, np.int64), "last"),
    ],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
print(import_model(model, shapes={"s": [(2,), (2,)]}).module)

# CHECK:      func.func @main(%{{.*}}: tensor<2xf32>, %{{.*}}: tensor<2xf32>, %x: tensor<2xf32>)
# CHECK-SAME:   onnxc.input_names = ["s[0]", "s[1]", "x"]
# CHECK-SAME:   onnxc.output_names = ["picked", "joined", "n", "parts[0]", "parts[1]"]
# CHECK:      "onnx.Identity"(%{{.*}}) {{.*}} : (tensor<2xf32>) -> tensor<2xf32>
# CHECK:      "onnx.Concat"(%{{.*}}, %x, %{{.*}}) {{.*}} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<6xf32>
# CHECK:      "onnx.Constant"() {{.*}}value = dense<3> : tensor<i64>
# CHECK:      "onnx.Split"(%x, %{{.*}}) {{.*}} -> (tensor<1xf32>, tensor<1xf32>)
# CHECK:      "onnx.Squeeze"
# CHECK:      "onnx.Squeeze"
# CHECK-NOT:  "onnx.Sequence
