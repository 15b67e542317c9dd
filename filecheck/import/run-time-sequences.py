# RUN: %python %s | filecheck %s
# A Loop of run-time trips that grows a sequence carries it as two tensors:
# its data (1-D) and its shape table (rank, then sizes: int64 [?, 2]). The
# empty initial sequence is two empty constants; the body's SequenceInsert
# appends a flattened tensor and a row; the body's inputs and the Loop's
# results have sizes that change from trip to trip. The graph output is the
# data and `s?shapes`.
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxc.frontend import import_model

F, I64 = TensorProto.FLOAT, TensorProto.INT64
value = helper.make_tensor_value_info
body = helper.make_graph(
    [
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        helper.make_node("Add", ["i", "one"], ["end"]),
        helper.make_node("Unsqueeze", ["end", "zero"], ["ends"]),
        helper.make_node("Slice", ["x", "zero", "ends"], ["piece"]),
        helper.make_node("SequenceInsert", ["seq_in", "piece"], ["seq_out"]),
    ],
    "body",
    [
        value("i", I64, []),
        value("cond_in", TensorProto.BOOL, []),
        helper.make_tensor_sequence_value_info("seq_in", F, None),
    ],
    [
        value("cond_out", TensorProto.BOOL, []),
        helper.make_tensor_sequence_value_info("seq_out", F, None),
    ],
)
graph = helper.make_graph(
    [
        helper.make_node("SequenceEmpty", [], ["empty"], dtype=F),
        helper.make_node("Loop", ["trips", "", "empty"], ["s"], body=body),
    ],
    "g",
    [value("trips", I64, []), value("x", F, [6])],
    [helper.make_tensor_sequence_value_info("s", F, [None])],
    [
        numpy_helper.from_array(np.array([0], np.int64), "zero"),
        numpy_helper.from_array(np.array(1, np.int64), "one"),
    ],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
print(import_model(model).module)

# CHECK:      func.func @main(%trips: tensor<i64>, %x: tensor<6xf32>) -> (tensor<?xf32, [{{.*}}]>, tensor<?x2xi64, [{{.*}}]>)
# CHECK-SAME:   onnxc.output_names = ["s", "s?shapes"]
# CHECK:        %[[DATA:.*]] = "onnx.Constant"() <{value = dense<> : tensor<0xf32>}>
# CHECK:        %[[SHAPES:.*]] = "onnx.Constant"() <{value = dense<> : tensor<0x2xi64>}>
# CHECK:        "onnx.Loop"(%trips, %{{.*}}, %[[DATA]], %[[SHAPES]])
# CHECK-NEXT:   ^bb0(%{{.*}}: tensor<i64>, %{{.*}}: tensor<i1>, %[[IN:.*]]: tensor<?xf32, [{{.*}}]>, %[[TABLE:.*]]: tensor<?x2xi64, [{{.*}}]>):
# CHECK:          %[[PIECE:.*]] = "onnx.Slice"(%x,
# CHECK:          %[[FLAT:.*]] = "onnx.Reshape"(%[[PIECE]],
# CHECK:          %[[ROW:.*]] = "onnx.Unsqueeze"(
# CHECK:          %[[MORE:.*]] = "onnx.Concat"(%[[IN]], %[[FLAT]]) <{axis = 0 : i64}>
# CHECK:          %[[ROWS:.*]] = "onnx.Concat"(%[[TABLE]], %[[ROW]]) <{axis = 0 : i64}>
# CHECK:          "onnx.Yield"(%{{.*}}, %[[MORE]], %[[ROWS]])
