# RUN: %python %s | filecheck %s
# If, Loop and Scan bodies import as regions of one block ending in
# onnx.Yield; a body reads outer-scope values directly (x and w in the
# branches, r in the loop body).
from onnx import TensorProto, helper

from onnxc.frontend import import_model

value = helper.make_tensor_value_info
then_branch = helper.make_graph(
    [helper.make_node("Neg", ["x"], ["t"], name="inner")], "then", [], [value("t", 1, [2])]
)
else_branch = helper.make_graph(
    [helper.make_node("Identity", ["w"], ["e"], name="pass")], "else", [], [value("e", 1, [2])]
)
body = helper.make_graph(
    [
        helper.make_node("Identity", ["c"], ["c_out"], name="keep"),
        helper.make_node("Add", ["v", "r"], ["v_out"], name="add"),
    ],
    "body",
    [value("i", TensorProto.INT64, []), value("c", TensorProto.BOOL, []), value("v", 1, [2])],
    [value("c_out", TensorProto.BOOL, []), value("v_out", 1, [2])],
)
graph = helper.make_graph(
    [
        helper.make_node("If", ["b"], ["r"], then_branch=then_branch, else_branch=else_branch),
        helper.make_node("Loop", ["n", "", "r"], ["y"], body=body),
    ],
    "g",
    [
        value("b", TensorProto.BOOL, []),
        value("n", TensorProto.INT64, []),
        value("x", TensorProto.FLOAT, [2]),
        value("w", TensorProto.FLOAT, [2]),
    ],
    [value("y", TensorProto.FLOAT, [2])],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
print(import_model(model).module)

# CHECK:      %r = "onnx.If"(%b) ({
# CHECK-NEXT:   %e = "onnx.Identity"(%w) {{.*}} -> tensor<2xf32>
# CHECK-NEXT:   "onnx.Yield"(%e) : (tensor<2xf32>) -> ()
# CHECK-NEXT: }, {
# CHECK-NEXT:   %t = "onnx.Neg"(%x) {{.*}} -> tensor<2xf32>
# CHECK-NEXT:   "onnx.Yield"(%t) : (tensor<2xf32>) -> ()
# CHECK-NEXT: })
# CHECK:      %y = "onnx.Loop"(%n, %{{.*}}, %r) ({
# CHECK-NEXT: ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<2xf32>):
# CHECK-NEXT:   %c_out = "onnx.Identity"(%c)
# CHECK-NEXT:   %v_out = "onnx.Add"(%v, %r)
# CHECK-NEXT:   "onnx.Yield"(%c_out, %v_out) : (tensor<i1>, tensor<2xf32>) -> ()
# CHECK-NEXT: })
