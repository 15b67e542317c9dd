"""The quantization operators' semantics beyond the type matrix: rounding half
to even, saturation, granularities (per axis with a negative axis, blocked
with a partial last block), an omitted zero point, `output_dtype`,
`precision`, float8 `saturate`, an all-zero DynamicQuantizeLinear input,
per-row and per-column parameters of the quantized matrix products, and
QLinearConv per output channel with groups and strides. Each model holds
several nodes (one C build) and is compared with values written out here,
with onnxruntime or with onnx.reference, whichever the case names."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import onnxc
from onnxc.tools import exact_integer
from tests.mcu.tools import MCU_TARGETS, needs_arm

ort = pytest.importorskip("onnxruntime")

RNG = np.random.default_rng(5)
F = TensorProto.FLOAT


@dataclass
class Node:
    """One node: its inputs (name -> value; `fed` ones are graph inputs, the
    others initializers, '' an omitted input), its outputs and how to get
    the expected values: a list of arrays, or 'onnxruntime' / 'reference'."""

    op: str
    inputs: list[tuple[str, np.ndarray | None]]
    outputs: list[tuple[str, int]]
    expected: list[np.ndarray] | str
    attributes: dict[str, Any] = field(default_factory=dict[str, Any])
    fed: tuple[str, ...] = ()


def _model(nodes: list[Node], opset: int) -> onnx.ModelProto:
    graph_inputs: list[onnx.ValueInfoProto] = []
    initializers: list[onnx.TensorProto] = []
    protos: list[onnx.NodeProto] = []
    for node in nodes:
        for name, value in node.inputs:
            if value is None:
                continue
            tensor = numpy_helper.from_array(value, name)
            if name in node.fed:
                graph_inputs.append(
                    helper.make_tensor_value_info(name, tensor.data_type, value.shape)
                )
            else:
                initializers.append(tensor)
        names = ["" if value is None else name for name, value in node.inputs]
        outputs = [name for name, _ in node.outputs]
        protos.append(helper.make_node(node.op, names, outputs, **node.attributes))
    graph = helper.make_graph(
        protos,
        "quantization",
        graph_inputs,
        [helper.make_tensor_value_info(n, t, None) for node in nodes for n, t in node.outputs],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return onnx.shape_inference.infer_shapes(model, strict_mode=True)


def _expected(node: Node, opset: int) -> list[np.ndarray]:
    if not isinstance(node.expected, str):
        return node.expected
    model = _model([node], opset)
    feeds = {name: value for name, value in node.inputs if name in node.fed}
    if node.expected == "onnxruntime":
        return list(exact_integer.session(model).run(None, feeds))
    outputs = ReferenceEvaluator(model).run(None, feeds)
    assert isinstance(outputs, list)
    return outputs


def run_and_compare(nodes: list[Node], name: str, opset: int = 21, target: str = "host") -> None:
    """Compile the nodes as one model for `target`, run it, and compare every
    output exactly (as float64 for floats, NaN equal to NaN)."""
    compiled = onnxc.compile(_model(nodes, opset), name=name, target=target)
    feeds = {n: v for node in nodes for n, v in node.inputs if n in node.fed and v is not None}
    results = compiled.run(feeds)
    for node in nodes:
        for (output, _), want in zip(node.outputs, _expected(node, opset), strict=True):
            got = results[output]
            want = np.asarray(want)
            assert got.shape == want.shape, output
            if got.dtype.kind in "iub":
                np.testing.assert_array_equal(got, want.astype(got.dtype), err_msg=output)
            else:
                g, w = got.astype(np.float64), want.astype(np.float64)
                np.testing.assert_array_equal(g, w, err_msg=output)


def f32(*values: float) -> np.ndarray:
    return np.array(values, np.float32)


def test_quantize_linear() -> None:
    ties = f32(0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 1000.0, -1000.0)
    x = (RNG.standard_normal((2, 5, 3)) * 40).astype(np.float32)
    run_and_compare(
        [
            # Round half to even, saturate to int8 (zero point 1: the sum saturates).
            Node(
                "QuantizeLinear",
                [("t", ties), ("t_s", f32(1.0)), ("t_z", np.array(1, np.int8))],
                [("ties_i8", TensorProto.INT8)],
                [np.array([1, 3, 3, 1, -1, -1, 5, 127, -128], np.int8)],
                fed=("t",),
            ),
            # No zero point: uint8.
            Node(
                "QuantizeLinear",
                [("u", ties), ("u_s", f32(0.5))],
                [("ties_u8", TensorProto.UINT8)],
                [np.array([1, 3, 5, 0, 0, 0, 7, 255, 0], np.uint8)],
                fed=("u",),
            ),
            # No zero point, output_dtype int16; per axis along a negative axis.
            Node(
                "QuantizeLinear",
                [("x16", x), ("x16_s", f32(0.01, 0.5, 2.0))],
                [("per_axis_i16", TensorProto.INT16)],
                "reference",
                {"axis": -1, "output_dtype": TensorProto.INT16},
                fed=("x16",),
            ),
            # Blocked along axis 1 (5 = 2 + 2 + 1), uint16 zero points.
            Node(
                "QuantizeLinear",
                [
                    ("xb", x),
                    ("xb_s", (RNG.uniform(0.001, 0.01, (2, 3, 3))).astype(np.float32)),
                    ("xb_z", RNG.integers(0, 60000, (2, 3, 3)).astype(np.uint16)),
                ],
                [("blocked_u16", TensorProto.UINT16)],
                "reference",
                {"axis": 1, "block_size": 2},
                fed=("xb",),
            ),
            # int32 x.
            Node(
                "QuantizeLinear",
                [("xi", np.array([-300, -7, 0, 5, 7, 300], np.int32)), ("xi_s", f32(2.0))],
                [("from_int32", TensorProto.UINT8)],
                [np.array([0, 0, 0, 2, 4, 150], np.uint8)],
                fed=("xi",),
            ),
        ],
        "quantize_linear",
        opset=23,
    )


@pytest.mark.parametrize(
    "target", ["host", "host-portable", *(pytest.param(t, marks=needs_arm) for t in MCU_TARGETS)]
)
def test_quantize_linear_edges_match_onnxruntime(target: str) -> None:
    """Every tie from -40000.5 to 40000.5 in steps that reach past the 8- and
    16-bit ranges, NaN, the infinities, huge values and values just beyond
    each range's ends, with a zero point: the quantizer clamps before it
    rounds (a float addition rounding half to even) and converts without a
    library call; NaN gives the type's lowest value, as onnxruntime's kernels
    give (the spec leaves it undefined). Exact."""
    ties = np.arange(-40000, 40001, 37, dtype=np.float64) + 0.5
    near = np.array([127.5, 128.5, -128.5, -129.5, 255.5, 256.5, 32767.5, 65535.5])
    special = np.array([np.nan, np.inf, -np.inf, 1e30, -1e30, 0.0, -0.0, 2.0**22 + 0.5])
    x = np.concatenate([ties, near, -near, special]).astype(np.float32)
    nodes = [
        Node(
            "QuantizeLinear",
            [(f"e{k}", x), (f"e{k}_s", f32(scale)), (f"e{k}_z", np.array(point, dtype))],
            [(f"edges_{np.dtype(dtype).name}", code)],
            "onnxruntime",
            fed=(f"e{k}",),
        )
        for k, (dtype, code, scale, point) in enumerate(
            [
                (np.int8, TensorProto.INT8, 1.0, 3),
                (np.uint8, TensorProto.UINT8, 0.5, 128),
                (np.int16, TensorProto.INT16, 1.0, -7),
                (np.uint16, TensorProto.UINT16, 1.0, 9),
            ]
        )
    ]
    run_and_compare(nodes, "quantize_linear_edges", opset=21, target=target)


def test_quantize_linear_precision() -> None:
    """`precision` bfloat16: 1 + 2^-8 rounds to 1 before the division, so the
    quotient is 512, not 514."""
    x = f32(1.00390625, 2.0)
    node = Node(
        "QuantizeLinear",
        [("x", x), ("s", f32(2.0**-9)), ("z", np.array(0, np.uint16))],
        [("y", TensorProto.UINT16)],
        [np.array([512, 1024], np.uint16)],
        {"precision": TensorProto.BFLOAT16},
        fed=("x",),
    )
    run_and_compare([node], "quantize_linear_precision", opset=23)


def test_quantize_linear_float8_saturate() -> None:
    """Beyond the largest finite value: saturated (the default), or infinity
    (e5m2) / NaN (e4m3fn) with saturate 0, as Cast converts."""
    x = f32(1.0, -2.5, 300.0, 1000.0, -1e6, np.inf, np.nan, 0.3)
    nodes = []
    for dtype, code in (
        (ml_dtypes.float8_e4m3fn, TensorProto.FLOAT8E4M3FN),
        (ml_dtypes.float8_e5m2, TensorProto.FLOAT8E5M2),
        (ml_dtypes.float8_e4m3fnuz, TensorProto.FLOAT8E4M3FNUZ),
    ):
        name = np.dtype(dtype).name
        zero = np.array(0, dtype)
        for saturate in (1, 0):
            largest = float(ml_dtypes.finfo(dtype).max)
            wide = x.astype(np.float64)
            if saturate:
                wide = np.where(np.isnan(wide), wide, np.clip(wide, -largest, largest))
            nodes.append(
                Node(
                    "QuantizeLinear",
                    [
                        (f"x_{name}_{saturate}", x),
                        (f"s_{name}_{saturate}", f32(1.0)),
                        (f"z_{name}_{saturate}", zero),
                    ],
                    [(f"y_{name}_{saturate}", code)],
                    [wide.astype(np.float32).astype(dtype)],
                    {"saturate": saturate},
                    fed=(f"x_{name}_{saturate}",),
                )
            )
    # A zero point is added, as the spec's formula says (onnxruntime and
    # onnx.reference ignore it for float8).
    zero_point = np.array(-1.5, ml_dtypes.float8_e4m3fn)
    nodes.append(
        Node(
            "QuantizeLinear",
            [("x_zp", x), ("s_zp", f32(2.0)), ("z_zp", zero_point)],
            [("y_zp", TensorProto.FLOAT8E4M3FN)],
            [np.clip(x / 2.0 - 1.5, -448, 448).astype(ml_dtypes.float8_e4m3fn)],
            fed=("x_zp",),
        )
    )
    run_and_compare(nodes, "quantize_linear_float8")


def test_dequantize_linear() -> None:
    x = RNG.integers(-128, 127, (2, 5, 3)).astype(np.int8)
    run_and_compare(
        [
            # Blocked along axis 1 with a partial last block, float16 scales.
            Node(
                "DequantizeLinear",
                [
                    ("xb", x),
                    ("xb_s", RNG.uniform(0.01, 1, (2, 3, 3)).astype(np.float16)),
                    ("xb_z", RNG.integers(-5, 5, (2, 3, 3)).astype(np.int8)),
                ],
                [("blocked", TensorProto.FLOAT16)],
                "reference",
                {"axis": 1, "block_size": 2},
                fed=("xb",),
            ),
            # Per axis along axis 0, no zero point, output_dtype float.
            Node(
                "DequantizeLinear",
                [("xa", x), ("xa_s", f32(0.5, 0.25).astype(np.float16))],
                [("per_axis", F)],
                [x.astype(np.float32) * np.array([0.5, 0.25], np.float32).reshape(2, 1, 1)],
                {"axis": 0, "output_dtype": F},
                fed=("xa",),
            ),
            # A one-element scale and zero point of shape [1] are per tensor.
            Node(
                "DequantizeLinear",
                [
                    ("xt", x.astype(np.uint8)),
                    ("xt_s", f32(0.125)),
                    ("xt_z", np.array([3], np.uint8)),
                ],
                [("per_tensor", F)],
                "onnxruntime",
                fed=("xt",),
            ),
        ],
        "dequantize_linear",
        opset=23,
    )


def test_dynamic_quantize_linear() -> None:
    """onnxruntime's answers, including an all-zero input (scale 1) and one
    of a single sign."""
    nodes = [
        Node(
            "DynamicQuantizeLinear",
            [(f"x{k}", value)],
            [(f"y{k}", TensorProto.UINT8), (f"s{k}", F), (f"z{k}", TensorProto.UINT8)],
            "onnxruntime",
            fed=(f"x{k}",),
        )
        for k, value in enumerate(
            [
                np.zeros((2, 3), np.float32),
                np.abs(RNG.standard_normal((4, 5))).astype(np.float32) + 1,
                -np.abs(RNG.standard_normal(7)).astype(np.float32),
                (RNG.standard_normal((3, 4)) * 10).astype(np.float32),
            ]
        )
    ]
    run_and_compare(nodes, "dynamic_quantize_linear", opset=11)


def _requantized(acc: np.ndarray, multiplier: np.ndarray, zero_point: int) -> np.ndarray:
    value = acc.astype(np.float32) * multiplier.astype(np.float32)
    return np.clip(np.rint(value) + zero_point, 0, 255).astype(np.uint8)


def test_quantized_matrix_products() -> None:
    """Per-row zero points and scales of a ([M] and [B, M, 1]), per-column of
    b ([N] and [B, 1, N]), a batch; against numpy in int32."""
    a = RNG.integers(0, 255, (2, 3, 4)).astype(np.uint8)
    b = RNG.integers(-128, 127, (2, 4, 5)).astype(np.int8)
    a_zp = RNG.integers(0, 255, (2, 3, 1)).astype(np.uint8)
    b_zp = RNG.integers(-10, 10, (5,)).astype(np.int8)
    acc = (a.astype(np.int32) - a_zp) @ (b.astype(np.int32) - b_zp)
    a_scale = RNG.uniform(0.01, 0.02, (3,)).astype(np.float32)
    b_scale = RNG.uniform(0.01, 0.02, (2, 1, 5)).astype(np.float32)
    y_scale = np.float32(0.05)
    multiplier = a_scale.reshape(1, 3, 1) * b_scale / y_scale
    run_and_compare(
        [
            Node(
                "MatMulInteger",
                [("a", a), ("b", b), ("a_zp", a_zp), ("b_zp", b_zp)],
                [("y_int", TensorProto.INT32)],
                [acc],
                fed=("a", "b"),
            ),
            Node(
                "QLinearMatMul",
                [
                    ("qa", a),
                    ("qa_s", a_scale),
                    ("qa_z", a_zp[0, :, 0]),
                    ("qb", b),
                    ("qb_s", b_scale),
                    ("qb_z", b_zp.reshape(1, 1, 5).repeat(2, axis=0)),
                    ("qy_s", np.array(y_scale)),
                    ("qy_z", np.array(7, np.uint8)),
                ],
                [("y_q", TensorProto.UINT8)],
                [
                    _requantized(
                        (a.astype(np.int32) - a_zp[:1]) @ (b.astype(np.int32) - b_zp),
                        multiplier,
                        7,
                    )
                ],
                fed=("qa", "qb"),
            ),
        ],
        "quantized_matrix_products",
    )


def test_qlinear_conv_per_channel() -> None:
    """Per-output-channel w scales and zero points, two groups, strides,
    dilations and padding, a bias; against onnx.reference (onnxruntime
    refuses per-channel uint8 weight zero points)."""
    x = RNG.integers(0, 255, (1, 4, 7, 6)).astype(np.uint8)
    w = RNG.integers(0, 255, (6, 2, 3, 2)).astype(np.uint8)
    node = Node(
        "QLinearConv",
        [
            ("x", x),
            ("x_s", np.array(0.02, np.float32)),
            ("x_z", np.array(100, np.uint8)),
            ("w", w),
            ("w_s", RNG.uniform(0.001, 0.004, (6,)).astype(np.float32)),
            ("w_z", RNG.integers(100, 150, (6,)).astype(np.uint8)),
            ("y_s", np.array(0.1, np.float32)),
            ("y_z", np.array(120, np.uint8)),
            ("B", RNG.integers(-2000, 2000, (6,)).astype(np.int32)),
        ],
        [("y", TensorProto.UINT8)],
        "reference",
        {"group": 2, "strides": [2, 1], "dilations": [1, 2], "pads": [1, 0, 2, 1]},
        fed=("x",),
    )
    conv_integer = Node(
        "ConvInteger",
        [
            ("ci_x", x),
            ("ci_w", w),
            ("ci_xz", np.array(100, np.uint8)),
            ("ci_wz", np.array(130, np.uint8)),
        ],
        [("ci_y", TensorProto.INT32)],
        "onnxruntime",
        {"group": 2, "auto_pad": "SAME_LOWER", "strides": [2, 2]},
        fed=("ci_x",),
    )
    run_and_compare([node, conv_integer], "qlinear_conv")
