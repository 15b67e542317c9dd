# RUN: %python %s %t.onnx && onnxc compile %t.onnx --emit c | filecheck %s
# The whole pipeline on strings: a LabelEncoder from strings (a constant
# onnxc_string table, bisected past eight keys) and a StringConcat (its
# result bytes in the workspace, sized from the inputs at run time).
import sys

import onnx
from onnx import TensorProto, helper

keys = ["ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen", "ibis", "jay"]
graph = helper.make_graph(
    [
        helper.make_node(
            "LabelEncoder",
            ["x"],
            ["ids"],
            domain="ai.onnx.ml",
            keys_strings=keys,
            values_int64s=list(range(10)),
        ),
        helper.make_node("StringConcat", ["x", "x"], ["twice"]),
    ],
    "words",
    [helper.make_tensor_value_info("x", TensorProto.STRING, [3])],
    [
        helper.make_tensor_value_info("ids", TensorProto.INT64, [3]),
        helper.make_tensor_value_info("twice", TensorProto.STRING, [3]),
    ],
)
opsets = [helper.make_opsetid("", 20), helper.make_opsetid("ai.onnx.ml", 4)]
onnx.save(helper.make_model(graph, opset_imports=opsets), sys.argv[1])

# CHECK:      #include "onnxc_strings.h"
# CHECK:      static const onnxc_string LabelEncoder_0_keys[10] = {
# CHECK-NEXT:   {"ant", 3},
# CHECK:      int {{.*}}_run_with_workspace(
# CHECK-NEXT:     void *workspace, size_t *workspace_size, const onnxc_string *x, int64_t *ids, onnxc_string *twice) {
# CHECK:        /* LabelEncoder LabelEncoder_0 */
# CHECK:        onnxc_string_less(
# CHECK:        onnxc_string_equal(
# CHECK:        /* StringConcat StringConcat_1 */
# CHECK:        return ONNXC_ERR_WORKSPACE;
# CHECK:        onnxc_string_concat((char *)
# CHECK:      size_t {{.*}}_workspace_size(void) {
