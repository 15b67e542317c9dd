# RUN: %python %s | filecheck %s
# String tensors import as tensors of !onnxc.string: a string initializer is
# an onnx.Constant of #onnxc.strings (bytes decoded as UTF-8, always inline,
# never a resource), string attributes stay attributes.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxc.frontend import import_model

words = np.array(["zero", "dög", "", "x"] * 5, dtype=object)  # 20: past the inline limit
graph = helper.make_graph(
    [
        helper.make_node("Equal", ["x", "words"], ["same"]),
        helper.make_node("StringNormalizer", ["x"], ["y"], case_change_action="UPPER"),
    ],
    "g",
    [helper.make_tensor_value_info("x", TensorProto.STRING, [20])],
    [
        helper.make_tensor_value_info("same", TensorProto.BOOL, [20]),
        helper.make_tensor_value_info("y", TensorProto.STRING, [None]),
    ],
    [numpy_helper.from_array(words, "words")],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
print(import_model(model).module)

# CHECK:      func.func @main(%x: tensor<20x!onnxc.string>)
# CHECK:        %words = "onnx.Constant"() <{value = #onnxc.strings<tensor<20x!onnxc.string>, ["zero", "d\C3\B6g", "", "x",
# CHECK:        "onnx.Equal"(%x, %words) {{.*}} : (tensor<20x!onnxc.string>, tensor<20x!onnxc.string>) -> tensor<20xi1>
# CHECK:        "onnx.StringNormalizer"(%x) <{case_change_action = "UPPER"
# CHECK-SAME:     : (tensor<20x!onnxc.string>) -> tensor<?x!onnxc.string
