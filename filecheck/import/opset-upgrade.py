# RUN: %python %s | filecheck %s
# A model on an old opset is upgraded to the dialect's opset on import: opset-11
# Squeeze takes `axes` as an attribute, the current one as an input.
from onnx import TensorProto, helper

from onnxc.frontend import import_model

graph = helper.make_graph(
    [helper.make_node("Squeeze", ["x"], ["y"], name="sq", axes=[1])],
    "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 1, 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
print(import_model(model).module)

# CHECK:      %[[AXES:.*]] = "onnx.Constant"() <{value = dense<1> : tensor<1xi64>}>
# CHECK:      "onnx.Squeeze"(%x, %[[AXES]])
# CHECK-SAME: (tensor<3x1x4xf32>, tensor<1xi64>) -> tensor<3x4xf32>
