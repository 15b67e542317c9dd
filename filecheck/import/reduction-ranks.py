# RUN: %python %s | filecheck %s
# Reductions whose axes come at run time: onnx's inference gives their
# results no rank; the importer gives them the rank keepdims and the number
# of axes tell (sizes unknown), so the values computed from them get one too.
from onnx import TensorProto, helper

from onnxc.frontend import import_model

graph = helper.make_graph(
    [
        helper.make_node("ReduceSum", ["x", "axes"], ["s"], name="drop", keepdims=0),
        helper.make_node("Sqrt", ["s"], ["y"], name="sqrt"),
        helper.make_node("ReduceMax", ["x", "axes"], ["m"], name="keep"),
        helper.make_node("Relu", ["m"], ["r"], name="relu"),
        helper.make_node("ReduceMean", ["x", "none"], ["z"], name="all", keepdims=0),
        helper.make_node("Neg", ["z"], ["n"], name="neg"),
    ],
    "g",
    [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4]),
        helper.make_tensor_value_info("axes", TensorProto.INT64, [2]),
        helper.make_tensor_value_info("none", TensorProto.INT64, [0]),
    ],
    [
        helper.make_tensor_value_info("y", TensorProto.FLOAT, [None]),
        helper.make_tensor_value_info("r", TensorProto.FLOAT, [None, None, None]),
        helper.make_tensor_value_info("n", TensorProto.FLOAT, []),
    ],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
print(import_model(model).module)

# CHECK:      %[[S:.*]] = "onnx.ReduceSum"(%x, %axes) {{.*}} -> tensor<?xf32, {{.*}}>
# CHECK-NEXT: "onnx.Sqrt"(%[[S]]) {{.*}} -> tensor<?xf32, {{.*}}>
# CHECK-NEXT: %[[M:.*]] = "onnx.ReduceMax"(%x, %axes) {{.*}} -> tensor<?x?x?xf32, {{.*}}>
# CHECK-NEXT: "onnx.Relu"(%[[M]])
# CHECK-NEXT: %[[Z:.*]] = "onnx.ReduceMean"(%x, %none) {{.*}} -> tensor<f32>
# CHECK-NEXT: "onnx.Neg"(%[[Z]])
