# RUN: %python %s | filecheck %s
# An initializer that is also a graph input stays an input (after the plain
# inputs), and scalars keep rank 0, distinct from shape [1].
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxc.frontend import import_model

graph = helper.make_graph(
    [
        helper.make_node("Mul", ["x", "scale"], ["m"]),
        helper.make_node("Add", ["m", "one"], ["y"]),
    ],
    "g",
    [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
        helper.make_tensor_value_info("scale", TensorProto.FLOAT, []),
    ],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    [
        numpy_helper.from_array(np.array(3.0, np.float32), "scale"),
        numpy_helper.from_array(np.array([1.0], np.float32), "one"),
    ],
)
imported = import_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]))
print(imported.module)
print("defaults:", {k: v.tolist() for k, v in imported.input_defaults.items()})

# CHECK:      func.func @main(%x: tensor<2xf32>, %scale: tensor<f32>) -> tensor<2xf32>
# CHECK-SAME: onnxc.input_names = ["x", "scale"]
# CHECK:      "onnx.Constant"() <{value = dense<1.000000e+00> : tensor<1xf32>}>
# CHECK:      "onnx.Mul"(%x, %scale) {{.*}} : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
# CHECK:      defaults: {'scale': 3.0}
