# RUN: %python %s | filecheck %s
# PRelu before opset 7 has one slope per channel (X's axis 1); from opset 7
# the slope broadcasts from the right. Upgrading the model, the importer
# unsqueezes a [C] slope to [C, 1, 1] first, so it keeps its meaning.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxc.frontend import import_model

graph = helper.make_graph(
    [helper.make_node("PRelu", ["x", "slope"], ["y"], name="prelu")],
    "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4, 3])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4, 3])],
    [numpy_helper.from_array(np.array([0.5, 1.5, 2.5], np.float32), "slope")],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)])
print(import_model(model).module)

# CHECK:      %[[SLOPE:.*]] = "onnx.Constant"() <{value = dense<[5.000000e-01, 1.500000e+00, 2.500000e+00]> : tensor<3xf32>}>
# CHECK:      %[[AXES:.*]] = "onnx.Constant"() <{value = dense<[1, 2]> : tensor<2xi64>}>
# CHECK:      %[[CHANNEL:.*]] = "onnx.Unsqueeze"(%[[SLOPE]], %[[AXES]]) {{.*}} : (tensor<3xf32>, tensor<2xi64>) -> tensor<3x1x1xf32>
# CHECK:      "onnx.PRelu"(%x, %[[CHANNEL]])
# CHECK-SAME: (tensor<2x3x4x3xf32>, tensor<3x1x1xf32>) -> tensor<2x3x4x3xf32>
