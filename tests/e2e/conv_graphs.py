"""A small builder of convolutional ONNX graphs with random weights, for the
kernel tests that check a composition (fused epilogues, the blocked layout
across operators) against onnxruntime."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper


class ConvGraph:
    """Nodes and weights of one graph whose input is `x` [1, C, H, W]; each
    node's output is named after the node."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.nodes: list[onnx.NodeProto] = []
        self.weights: list[onnx.TensorProto] = []

    def weight(self, name: str, shape: tuple[int, ...], scale: float) -> str:
        array = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.weights.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op: str, inputs: list[str], output: str, **attributes: int | list[int]) -> str:
        node = h.make_node(op, inputs, [output], name=output)
        node.attribute.extend(h.make_attribute(k, v) for k, v in attributes.items())
        self.nodes.append(node)
        return output

    def conv(self, x: str, name: str, cin: int, cout: int, k: int, group: int = 1) -> str:
        """A k x k convolution with bias, padded to keep the image's size,
        weights scaled to keep activations near 1."""
        fan_in = cin // group * k * k
        w = self.weight(f"{name}_w", (cout, cin // group, k, k), (2 / fan_in) ** 0.5)
        b = self.weight(f"{name}_b", (cout,), 0.1)
        return self.node("Conv", [x, w, b], name, pads=[k // 2] * 4, group=group)

    def model(self, shape: list[int], output: str, output_shape: list[int]) -> onnx.ModelProto:
        graph = h.make_graph(
            self.nodes,
            "g",
            [h.make_tensor_value_info("x", T.FLOAT, shape)],
            [h.make_tensor_value_info(output, T.FLOAT, output_shape)],
            self.weights,
        )
        return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def matches_onnxruntime(model: onnx.ModelProto, target: str, rng: np.random.Generator) -> str:
    """Compile `model` for `target`, check it against onnxruntime on one
    random input (float32: 1e-4 relative, 1e-5 absolute; the sums run in
    another order than onnxruntime's) and return the C source."""
    import onnxruntime as ort

    import onnxc

    dims = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    x = (rng.standard_normal(dims) * 2).astype(np.float32)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = np.asarray(session.run(None, {"x": x})[0])
    compiled = onnxc.compile(model, target=target)
    got = next(iter(compiled.run({"x": x}).values()))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    return compiled.c_source
