# RUN: %python %s | filecheck %s
# The importer turns nodes into onnx ops on static tensor types: initializers
# become constants (large ones as resources), omitted optional inputs `none`,
# dim_params are bound, node names kept.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxc.frontend import import_model

weights = numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w")
bound = helper.make_tensor("max", TensorProto.FLOAT, [], [6.0])
graph = helper.make_graph(
    [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Clip", ["c", "", "max"], ["y"], name="clip1"),
    ],
    "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4, 8, 8])],
    [weights, bound],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
print(import_model(model, dims={"N": 2}).module)

# CHECK:      func.func @main(%x: tensor<2x3x8x8xf32>) -> tensor<2x4x8x8xf32>
# CHECK-SAME:   onnxc.input_names = ["x"], onnxc.output_names = ["y"]
# CHECK:      %[[W:.*]] = "onnx.Constant"() <{value = dense_resource<w{{.*}}> : tensor<4x3x3x3xf32>}>
# CHECK:      %[[MAX:.*]] = "onnx.Constant"() <{value = dense<6.000000e+00> : tensor<f32>}>
# CHECK:      %[[NONE:.*]] = "onnx.NoValue"() : () -> none
# CHECK:      %[[C:.*]] = "onnx.Conv"(%x, %[[W]], %[[NONE]]) <{pads = array<i64: 1, 1, 1, 1>}> {onnx_node_name = "conv1"}
# CHECK-SAME:   -> tensor<2x4x8x8xf32>
# CHECK:      %[[Y:.*]] = "onnx.Clip"(%[[C]], %[[NONE]], %[[MAX]]) {onnx_node_name = "clip1"}
# CHECK:      func.return %[[Y]] : tensor<2x4x8x8xf32>
