"""Random-graph differential testing: seeded, valid ONNX graphs of 2-15 nodes,
compiled by onnxc and compared with onnxruntime.

The generator keeps a pool of values (name, shape, element type) and adds
nodes whose inputs it picks from the pool under each operator's shape and
type constraints, biased toward what the kernel stage and the layout passes
touch: Conv (dense, grouped, depthwise; 2-D and 1-D) and MatMul/Gemm fed or followed by
Transpose, Reshape, Flatten, Slice, Concat, broadcasting elementwise ops,
residual Adds, activations, pools, reductions, normalisations and Softmax.
Some graphs name their batch dimension (a free dimension, sized at run time),
some take outputs from the middle of the graph as well as its end, some run
on int32 or float16 where every operator of the graph allows it.

A compiled model runs in a forked child, so a crash (a heap overflow under
AddressSanitizer, a segfault) is reported for the graph instead of ending the
run. On a mismatch or a crash, the graph is minimised: nodes are cut away
(the graph up to one failing output) and turned into graph inputs (a node's
result given as an input instead) while the failure stays, and the smallest
graph is written as a reproducer (`tests/fuzz/regressions/`, where
`test_graphs.py` runs every one).

    python -m tests.fuzz.graphs --minutes 60            # a campaign
    python -m tests.fuzz.graphs --seeds 0:200 --targets host,host-portable
    python -m tests.fuzz.graphs --show 17               # print graph 17
"""

from __future__ import annotations

import argparse
import functools
import math
import multiprocessing
import os
import pickle
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import onnx.version_converter
from onnx import TensorProto, helper, numpy_helper

from onnxc.forked import run_forked
from onnxc.tools.exact_integer import exact_integer_products

OPSET = 18
SPEC_OPSET = 21
"""The opset graphs are converted to for onnx.reference, which implements
DequantizeLinear and QuantizeLinear from opset 19 on."""
REGRESSIONS = Path(__file__).resolve().parent / "regressions"
FLOAT = TensorProto.FLOAT

RTOL = 1e-4
"""Relative tolerance against onnxruntime; the absolute one is `RTOL` times
the largest magnitude of the expected output (at least 1): graphs chain
reductions and exponentials, whose results differ in the last bits with the
order of summation (onnxruntime's MLAS kernels sum in other orders)."""


@dataclass
class Value:
    name: str
    shape: list[int]
    elem: int = FLOAT


@dataclass
class Builder:
    """A graph being generated."""

    rng: np.random.Generator
    elem: int = FLOAT
    nodes: list[onnx.NodeProto] = field(default_factory=list[onnx.NodeProto])
    inputs: list[Value] = field(default_factory=list[Value])
    pool: list[Value] = field(default_factory=list[Value])
    weights: dict[str, np.ndarray] = field(default_factory=dict[str, np.ndarray])
    count: int = 0

    def fresh(self, base: str) -> str:
        self.count += 1
        return f"{base}{self.count}"

    def constant(self, array: np.ndarray, base: str = "w") -> str:
        name = self.fresh(base)
        self.weights[name] = array
        return name

    def floats(self, shape: Sequence[int], scale: float = 1.0) -> str:
        array = self.rng.standard_normal(list(shape)) * scale
        return self.constant(array.astype(_numpy(self.elem)))

    def ints(self, values: Sequence[int]) -> str:
        return self.constant(np.array(list(values), np.int64), "i")

    def add(
        self, op: str, inputs: list[str], shape: list[int], elem: int | None = None, **attrs
    ) -> Value:
        out = Value(self.fresh(op.lower()), list(shape), self.elem if elem is None else elem)
        self.nodes.append(helper.make_node(op, inputs, [out.name], name=out.name, **attrs))
        self.pool.append(out)
        return out

    def new_input(self, shape: Sequence[int]) -> Value:
        value = Value(self.fresh("x"), list(shape), self.elem)
        self.inputs.append(value)
        self.pool.append(value)
        return value

    def pick(self, accept: Callable[[Value], bool] = lambda v: True) -> Value | None:
        found = [v for v in self.pool if accept(v)]
        if not found:
            return None
        # recent values more often: chains rather than fans
        weights = np.arange(1, len(found) + 1, dtype=np.float64) ** 2
        return found[int(self.rng.choice(len(found), p=weights / weights.sum()))]


def _numpy(elem: int) -> np.dtype:
    return helper.tensor_dtype_to_np_dtype(elem)


def _size(shape: Sequence[int]) -> int:
    return math.prod(shape)


# --- operators ----------------------------------------------------------------
# Each takes the builder and adds one node (and the constants it needs), or
# returns None when the pool holds nothing it can take.

UNARY_FLOAT = [
    "Relu",
    "Sigmoid",
    "Tanh",
    "Abs",
    "Neg",
    "HardSwish",
    "HardSigmoid",
    "Erf",
    "Softplus",
    "SiLU",  # x * Sigmoid(x): two nodes, fused by onnx-fuse-activations
]
UNARY_ANY = ["Relu", "Abs", "Neg"]


def unary(b: Builder) -> Value | None:
    x = b.pick()
    if x is None:
        return None
    ops = UNARY_FLOAT if b.elem != TensorProto.INT32 else UNARY_ANY
    op = str(b.rng.choice([*ops, "LeakyRelu", "Clip"] if b.elem != TensorProto.INT32 else ops))
    if op == "LeakyRelu":
        return b.add(op, [x.name], x.shape, alpha=float(b.rng.choice([0.01, 0.2])))
    if op == "Clip":
        lo = b.constant(np.array(-0.5, _numpy(b.elem)))
        hi = b.constant(np.array(float(b.rng.choice([0.5, 6.0])), _numpy(b.elem)))
        return b.add(op, [x.name, lo, hi], x.shape)
    if op == "SiLU":
        gate = b.add("Sigmoid", [x.name], x.shape)
        ordered = [x.name, gate.name] if b.rng.random() < 0.5 else [gate.name, x.name]
        return b.add("Mul", ordered, x.shape)
    return b.add(op, [x.name], x.shape)


def _broadcast_partner(b: Builder, shape: list[int]) -> str:
    """A constant or pool value that broadcasts against `shape`."""
    same = [v for v in b.pool if v.shape == shape and v.elem == b.elem]
    choice = b.rng.integers(4)
    if choice == 0 and same:
        return same[int(b.rng.integers(len(same)))].name  # residual
    if choice == 1 and shape:  # a suffix of the shape, some axes 1
        start = int(b.rng.integers(len(shape)))
        part = [d if b.rng.random() < 0.6 else 1 for d in shape[start:]]
        return b.floats(part)
    if choice == 2 and len(shape) >= 2:  # per channel (axis 1), as a bias after a conv
        return b.floats([shape[1]] + [1] * (len(shape) - 2))
    return b.floats([] if b.rng.random() < 0.3 else shape)


def binary(b: Builder) -> Value | None:
    x = b.pick()
    if x is None:
        return None
    op = str(b.rng.choice(["Add", "Add", "Mul", "Sub", "Max", "Min"]))
    other = _broadcast_partner(b, x.shape)
    ordered = [x.name, other] if b.rng.random() < 0.5 else [other, x.name]
    return b.add(op, ordered, x.shape)


def _window(b: Builder, h: int, w: int) -> tuple[list[int], int, int, int, int, int] | None:
    """A random 2-D window over h x w: kernel shape, stride, dilation, pad,
    and the output's height and width (None when nothing is left)."""
    kh, kw = (int(b.rng.choice([1, 1, 3, 5])) for _ in range(2))
    kh, kw = min(kh, h + 2), min(kw, w + 2)
    stride = int(b.rng.choice([1, 1, 2]))
    dilation = int(b.rng.choice([1, 1, 1, 2]))
    pad = int(b.rng.integers(0, 3))
    oh = (h + 2 * pad - dilation * (kh - 1) - 1) // stride + 1
    ow = (w + 2 * pad - dilation * (kw - 1) - 1) // stride + 1
    if oh < 1 or ow < 1:
        return None
    return [kh, kw], stride, dilation, pad, oh, ow


def conv(b: Builder) -> Value | None:
    x = b.pick(lambda v: len(v.shape) == 4 and v.shape[2] >= 1 and v.elem == FLOAT)
    if x is None:
        return None
    n, c, h, w = x.shape
    kind = b.rng.integers(4)
    group = c if kind == 0 else (2 if kind == 1 and c % 2 == 0 else 1)
    m = c if kind == 0 else int(b.rng.choice([1, 3, 4, 8, 16, 17]))
    if group == 2 and m % 2:
        m += 1
    window = _window(b, h, w)
    if window is None:
        return None
    (kh, kw), stride, dilation, pad, oh, ow = window
    fan = (c // group) * kh * kw
    weight = b.floats([m, c // group, kh, kw], 1 / math.sqrt(fan))
    inputs = [x.name, weight] + ([b.floats([m], 0.1)] if b.rng.random() < 0.7 else [])
    return b.add(
        "Conv",
        inputs,
        [n, m, oh, ow],
        group=group,
        kernel_shape=[kh, kw],
        strides=[stride, stride],
        dilations=[dilation, dilation],
        pads=[pad] * 4,
    )


def conv1d(b: Builder) -> Value | None:
    """A 1-D Conv (dense, grouped or depthwise) of a [N, C, L] value (the
    kernel stage runs it as a 2-D one of height 1)."""
    x = b.pick(lambda v: len(v.shape) == 3 and v.elem == FLOAT)
    if x is None:
        return None
    n, c, length = x.shape
    kind = b.rng.integers(4)
    group = c if kind == 0 else (2 if kind == 1 and c % 2 == 0 else 1)
    m = c if kind == 0 else int(b.rng.choice([1, 3, 4, 8, 16, 17]))
    if group == 2 and m % 2:
        m += 1
    k = min(int(b.rng.choice([1, 3, 3, 5, 7])), length + 2)
    stride = int(b.rng.choice([1, 1, 2]))
    dilation = int(b.rng.choice([1, 1, 1, 2]))
    pads = [int(p) for p in b.rng.integers(0, 3, size=2)]
    out = (length + sum(pads) - dilation * (k - 1) - 1) // stride + 1
    if out < 1:
        return None
    weight = b.floats([m, c // group, k], 1 / math.sqrt((c // group) * k))
    inputs = [x.name, weight] + ([b.floats([m], 0.1)] if b.rng.random() < 0.7 else [])
    return b.add(
        "Conv",
        inputs,
        [n, m, out],
        group=group,
        kernel_shape=[k],
        strides=[stride],
        dilations=[dilation],
        pads=pads,
    )


def conv_transpose(b: Builder) -> Value | None:
    """A 1-D or 2-D ConvTranspose (group 1 or 2): stride 1 (the flipped
    convolution on the kernels), or up to 3 with pads, dilations and
    output_padding (the columns and their scatter, or the plain loops)."""
    x = b.pick(lambda v: len(v.shape) in (3, 4) and v.elem == FLOAT)
    if x is None:
        return None
    n, c, *spatial = x.shape
    rank = len(spatial)
    group = 2 if c % 2 == 0 and b.rng.random() < 0.25 else 1
    m = group * int(b.rng.choice([1, 3, 4, 8]))
    kernel = [int(b.rng.choice([1, 2, 3, 4])) for _ in range(rank)]
    stride = int(b.rng.choice([1, 2, 2, 3]))
    dilation = int(b.rng.choice([1, 1, 1, 2]))
    pads = [int(b.rng.integers(0, k)) for k in kernel * 2]
    extra = int(b.rng.integers(0, stride))  # output_padding < stride (onnxruntime's rule)
    out = [
        stride * (size - 1) + extra + dilation * (k - 1) + 1 - pads[d] - pads[d + rank]
        for d, (size, k) in enumerate(zip(spatial, kernel, strict=True))
    ]
    if min(out) < 1:
        return None
    weight = b.floats([c, m // group, *kernel], 1 / math.sqrt(c // group * math.prod(kernel)))
    inputs = [x.name, weight] + ([b.floats([m], 0.1)] if b.rng.random() < 0.7 else [])
    return b.add(
        "ConvTranspose",
        inputs,
        [n, m, *out],
        group=group,
        kernel_shape=kernel,
        strides=[stride] * rank,
        dilations=[dilation] * rank,
        pads=pads,
        output_padding=[extra] * rank,
    )


def batch_norm(b: Builder) -> Value | None:
    x = b.pick(lambda v: len(v.shape) == 4 and v.elem == FLOAT)
    if x is None:
        return None
    c = x.shape[1]
    scale, bias, mean = (b.floats([c], 0.5) for _ in range(3))
    var = b.constant((b.rng.random(c) + 0.5).astype(np.float32))
    return b.add("BatchNormalization", [x.name, scale, bias, mean, var], x.shape)


def pool(b: Builder) -> Value | None:
    x = b.pick(lambda v: len(v.shape) == 4 and v.elem == FLOAT)
    if x is None:
        return None
    n, c, h, w = x.shape
    op = str(b.rng.choice(["MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"]))
    if op.startswith("Global"):
        return b.add(op, [x.name], [n, c, 1, 1])
    k = int(b.rng.choice([2, 3]))
    s = int(b.rng.choice([1, 2]))
    pad = int(b.rng.integers(0, 2)) if k == 3 else 0
    oh, ow = (h + 2 * pad - k) // s + 1, (w + 2 * pad - k) // s + 1
    if oh < 1 or ow < 1:
        return None
    return b.add(op, [x.name], [n, c, oh, ow], kernel_shape=[k, k], strides=[s, s], pads=[pad] * 4)


def matmul(b: Builder) -> Value | None:
    x = b.pick(lambda v: len(v.shape) >= 2 and v.elem == FLOAT)
    if x is None:
        return None
    k = x.shape[-1]
    n = int(b.rng.choice([1, 3, 8, 16, 17, 33]))
    if b.rng.random() < 0.5:
        weight = b.floats([k, n], 1 / math.sqrt(k))
    else:  # B computed at run time, batched like A
        partner = b.pick(
            lambda v: (
                v.shape[:-2] == x.shape[:-2]
                and len(v.shape) == len(x.shape)
                and v.shape[-2] == k
                and v.elem == FLOAT
                and v.name != x.name
            )
        )
        weight = partner.name if partner is not None else b.new_input([*x.shape[:-2], k, n]).name
        n = next(v for v in b.pool if v.name == weight).shape[-1]
    return b.add("MatMul", [x.name, weight], [*x.shape[:-1], n])


def gemm(b: Builder) -> Value | None:
    x = b.pick(lambda v: len(v.shape) == 2 and v.elem == FLOAT)
    if x is None:
        return None
    m, k = x.shape
    n = int(b.rng.choice([1, 4, 10, 16, 20]))
    trans_b = int(b.rng.integers(2))
    weight = b.floats([n, k] if trans_b else [k, n], 1 / math.sqrt(k))
    inputs = [x.name, weight] + ([b.floats([n], 0.1)] if b.rng.random() < 0.7 else [])
    return b.add("Gemm", inputs, [m, n], transB=trans_b)


def transpose(b: Builder) -> Value | None:
    x = b.pick(lambda v: len(v.shape) >= 2)
    if x is None:
        return None
    perm = [int(p) for p in b.rng.permutation(len(x.shape))]
    if b.rng.random() < 0.5 and len(perm) >= 3:  # keep the last axis (what kernels fold)
        perm = [int(p) for p in b.rng.permutation(len(x.shape) - 1)] + [len(x.shape) - 1]
    return b.add("Transpose", [x.name], [x.shape[p] for p in perm], perm=perm)


def _factors(total: int, rank: int, rng: np.random.Generator) -> list[int]:
    shape = [1] * rank
    remaining = total
    for axis in rng.permutation(rank)[:-1]:
        divisors = [d for d in range(1, remaining + 1) if remaining % d == 0]
        d = int(rng.choice(divisors))
        shape[int(axis)] = d
        remaining //= d
    shape[shape.index(1) if 1 in shape else 0] *= remaining
    return shape


def reshape(b: Builder) -> Value | None:
    x = b.pick()
    if x is None:
        return None
    if b.rng.random() < 0.3 and len(x.shape) >= 2:
        axis = int(b.rng.integers(0, len(x.shape) + 1))
        shape = [_size(x.shape[:axis]), _size(x.shape[axis:])]
        return b.add("Flatten", [x.name], shape, axis=axis)
    shape = _factors(_size(x.shape), int(b.rng.integers(1, 5)), b.rng)
    given = list(shape)
    if b.rng.random() < 0.3:
        given[int(b.rng.integers(len(given)))] = -1
    return b.add("Reshape", [x.name, b.ints(given)], shape)


def slice_(b: Builder) -> Value | None:
    x = b.pick(lambda v: any(d >= 2 for d in v.shape))
    if x is None:
        return None
    axis = int(b.rng.choice([a for a, d in enumerate(x.shape) if d >= 2]))
    d = x.shape[axis]
    step = int(b.rng.choice([1, 1, 2, -1]))
    if step > 0:
        start = int(b.rng.integers(0, d - 1))
        end = int(b.rng.integers(start + 1, d + 1))
        length = len(range(start, end, step))
    else:
        start, end = d - 1, -d - 1  # the whole axis reversed
        length = d
    shape = list(x.shape)
    shape[axis] = length
    return b.add(
        "Slice", [x.name, b.ints([start]), b.ints([end]), b.ints([axis]), b.ints([step])], shape
    )


def concat(b: Builder) -> Value | None:
    x = b.pick(lambda v: len(v.shape) >= 1)
    if x is None:
        return None
    axis = int(b.rng.integers(len(x.shape)))
    partners = [
        v
        for v in b.pool
        if len(v.shape) == len(x.shape)
        and v.elem == x.elem
        and all(p == q for i, (p, q) in enumerate(zip(v.shape, x.shape, strict=True)) if i != axis)
    ]
    other = partners[int(b.rng.integers(len(partners)))] if partners else x
    shape = list(x.shape)
    shape[axis] += other.shape[axis]
    return b.add("Concat", [x.name, other.name], shape, axis=axis)


def reduce(b: Builder) -> Value | None:
    x = b.pick(lambda v: len(v.shape) >= 1)
    if x is None:
        return None
    op = str(b.rng.choice(["ReduceMean", "ReduceSum", "ReduceMax"]))
    count = int(b.rng.integers(1, len(x.shape) + 1))
    axes = sorted(int(a) for a in b.rng.choice(len(x.shape), count, replace=False))
    keep = int(b.rng.integers(2))
    shape = (
        [1 if a in axes else d for a, d in enumerate(x.shape)]
        if keep
        else [d for a, d in enumerate(x.shape) if a not in axes]
    )
    return b.add(op, [x.name, b.ints(axes)], shape, keepdims=keep)


def softmax(b: Builder) -> Value | None:
    x = b.pick(lambda v: len(v.shape) >= 1 and v.elem == FLOAT)
    if x is None:
        return None
    axis = int(b.rng.integers(-len(x.shape), len(x.shape)))
    return b.add(
        str(b.rng.choice(["Softmax", "Softmax", "LogSoftmax"])), [x.name], x.shape, axis=axis
    )


def layer_norm(b: Builder) -> Value | None:
    x = b.pick(lambda v: len(v.shape) >= 1 and v.elem == FLOAT)
    if x is None:
        return None
    axis = int(b.rng.integers(-len(x.shape), 0))
    norm = x.shape[axis:]
    return b.add(
        "LayerNormalization", [x.name, b.floats(norm, 0.5), b.floats(norm, 0.5)], x.shape, axis=axis
    )


def squeeze(b: Builder) -> Value | None:
    x = b.pick(lambda v: len(v.shape) <= 4)
    if x is None:
        return None
    ones = [a for a, d in enumerate(x.shape) if d == 1]
    if ones and b.rng.random() < 0.5:
        axis = int(b.rng.choice(ones))
        return b.add(
            "Squeeze", [x.name, b.ints([axis])], [d for a, d in enumerate(x.shape) if a != axis]
        )
    axis = int(b.rng.integers(0, len(x.shape) + 1))
    return b.add("Unsqueeze", [x.name, b.ints([axis])], [*x.shape[:axis], 1, *x.shape[axis:]])


def recurrent(b: Builder) -> Value | None:
    """An RNN, GRU or LSTM over a 3-D value [seq, batch, input]: any
    direction, hidden size, biases, initial states, sequence lengths,
    peepholes and `linear_before_reset`; its Y or its Y_h joins the pool.
    Layout 0 only: onnxruntime refuses batch-first recurrences (the backend
    suite's batchwise cases test them against onnx.reference)."""
    x = b.pick(lambda v: len(v.shape) == 3 and v.elem == FLOAT)
    if x is None:
        if b.rng.random() < 0.5:
            return None
        x = b.new_input([int(b.rng.integers(1, n)) for n in (7, 4, 9)])
    op = str(b.rng.choice(["RNN", "GRU", "LSTM"]))
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    seq, batch = x.shape[0], x.shape[1]
    hidden = int(b.rng.choice([1, 3, 8, 16, 17]))
    direction = str(b.rng.choice(["forward", "reverse", "bidirectional"]))
    d = 2 if direction == "bidirectional" else 1
    scale = 1 / math.sqrt(hidden)
    inputs = [x.name, b.floats([d, gates * hidden, x.shape[2]], scale)]
    inputs.append(b.floats([d, gates * hidden, hidden], scale))
    state = [d, batch, hidden]
    optional = [
        b.floats([d, 2 * gates * hidden], 0.1) if b.rng.random() < 0.7 else "",
        b.constant(b.rng.integers(1, seq + 1, batch).astype(np.int32), "lens")
        if b.rng.random() < 0.2
        else "",
        b.floats(state, 0.5) if b.rng.random() < 0.4 else "",
    ]
    if op == "LSTM":
        optional.append(b.floats(state, 0.5) if b.rng.random() < 0.4 else "")
        optional.append(b.floats([d, 3 * hidden], 0.3) if b.rng.random() < 0.3 else "")
    while optional and not optional[-1]:
        optional.pop()
    attributes: dict[str, Any] = {
        "hidden_size": hidden,
        "direction": direction,
    }
    if op == "GRU":
        attributes["linear_before_reset"] = int(b.rng.integers(2))
    whole = b.rng.random() < 0.5
    shape = [seq, d, batch, hidden] if whole else state
    out = Value(b.fresh(op.lower()), shape)
    outputs = [out.name] if whole else ["", out.name]
    b.nodes.append(helper.make_node(op, [*inputs, *optional], outputs, name=out.name, **attributes))
    b.pool.append(out)
    return out


def quantize(b: Builder) -> Value | None:
    """QuantizeLinear then DequantizeLinear (as a quantized model holds them
    around its layers) of a graph input: int8 or uint8, per tensor or along
    an axis, with a scale that saturates some values and rounds others half
    to even. Only inputs: a value computed in float differs from
    onnxruntime's in its last bits, enough to move it across a rounding
    boundary now and then (a one-step difference that is no bug)."""
    inputs = {v.name for v in b.inputs}
    x = b.pick(lambda v: v.elem == FLOAT and v.name in inputs)
    if x is None:
        return None
    signed = bool(b.rng.integers(2))
    per_axis = len(x.shape) >= 1 and b.rng.random() < 0.4
    axis = int(b.rng.integers(len(x.shape))) if per_axis else None
    count = [x.shape[axis]] if axis is not None else []
    scale = b.constant(b.rng.uniform(0.002, 0.05, count).astype(np.float32), "s")
    center, dtype = (0, np.int8) if signed else (128, np.uint8)
    point = b.constant(b.rng.integers(center - 20, center + 21, count).astype(dtype), "z")
    attributes = {} if axis is None else {"axis": axis}
    quantized = b.add(
        "QuantizeLinear",
        [x.name, scale, point],
        x.shape,
        TensorProto.INT8 if signed else TensorProto.UINT8,
        **attributes,
    )
    b.pool.remove(quantized)  # only float values feed the other generators
    return b.add("DequantizeLinear", [quantized.name, scale, point], x.shape, **attributes)


def _scales(b: Builder, count: int, exact: bool, size: float) -> np.ndarray:
    """`count` positive scales around `size`: powers of two when `exact`."""
    scales = size * np.exp(b.rng.uniform(-0.7, 0.7, count))
    if exact:
        scales = 2.0 ** np.round(np.log2(scales))
    return scales.astype(np.float32)


def quantized_conv(b: Builder) -> Value | None:
    """A quantized convolution of a graph input, as quantizers write one:
    the input quantized (int8 or uint8, a zero point off center), then one
    or two convolutions (dense or depthwise) on int8 weights (per tensor or per output
    channel, zero points 0) and an int32 bias at scale x_scale * w_scale,
    each requantized with a scale that saturates some outputs, then the
    last one dequantized; a QDQ layer may be followed by a quantized
    AveragePool (`_quantized_pool`). Half the graphs write each convolution as a
    QLinearConv (the QOperator form), half as DequantizeLinear -> Conv ->
    QuantizeLinear (the QDQ form, which the Cortex-M targets fuse into a
    QLinearConv). The QDQ form's scales are powers of two, so that its float
    arithmetic (the host's) is exact and rounds as the integer kernels do;
    with other scales it differs from onnxruntime's integer kernels by a
    step where a value falls within rounding error of a half step."""
    inputs = {v.name for v in b.inputs}
    x = b.pick(lambda v: v.elem == FLOAT and v.name in inputs and len(v.shape) == 4)
    if x is None:
        return None
    qdq = bool(b.rng.integers(2))
    elem = TensorProto.INT8 if b.rng.integers(2) else TensorProto.UINT8
    center = 0 if elem == TensorProto.INT8 else 128
    x_scale = _scales(b, 1, qdq, 0.03)[0]
    point = np.array(center + int(b.rng.integers(-30, 31)), _numpy(elem))
    quantized = b.add(
        "QuantizeLinear", [x.name, b.constant(np.array(x_scale)), b.constant(point)], x.shape, elem
    )
    b.pool.remove(quantized)
    scale_name, point_name = b.nodes[-1].input[1], b.nodes[-1].input[2]
    for _ in range(int(b.rng.integers(1, 3))):
        n, c, h, w = quantized.shape
        window = _window(b, h, w)
        if window is None:
            break
        kernel_shape, stride, dilation, pad, oh, ow = window
        depthwise = b.rng.random() < 0.3
        m = c if depthwise else int(b.rng.choice([1, 2, 3, 4, 5, 8, 16, 17]))
        group = c if depthwise else 1
        per_channel = bool(b.rng.integers(2))
        w_scale = _scales(b, m if per_channel else 1, qdq, 0.02)
        weights = b.rng.integers(-127, 128, [m, c // group, *kernel_shape]).astype(np.int8)
        bias = b.rng.integers(-3000, 3001, m).astype(np.int32) if b.rng.random() < 0.7 else None
        taps = c // group * kernel_shape[0] * kernel_shape[1]
        spread = float(x_scale * np.mean(w_scale)) * 40 * math.sqrt(taps)
        y_scale = _scales(b, 1, qdq, spread / float(b.rng.choice([30, 100])))[0]
        y_point = np.array(center + int(b.rng.integers(-30, 31)), _numpy(elem))
        attributes = {
            "group": group,
            "kernel_shape": kernel_shape,
            "strides": [stride, stride],
            "dilations": [dilation, dilation],
            "pads": [pad] * 4,
        }
        w_names = [b.constant(weights), b.constant(w_scale if per_channel else w_scale[0])]
        w_point = np.zeros(m if per_channel else (), np.int8)
        y_names = [b.constant(np.array(y_scale)), b.constant(y_point)]
        shape = [n, m, oh, ow]
        if qdq:
            x_float = b.add(
                "DequantizeLinear", [quantized.name, scale_name, point_name], quantized.shape
            )
            w_float = b.add(
                "DequantizeLinear",
                [*w_names, b.constant(w_point)],
                [m, c // group, *kernel_shape],
                axis=0,
            )
            conv_inputs = [x_float.name, w_float.name]
            made = [x_float, w_float]
            if bias is not None:
                bias_scale = (np.float32(x_scale) * w_scale).astype(np.float32)
                bias_scale_name = b.constant(bias_scale if per_channel else bias_scale[0])
                b_float = b.add(
                    "DequantizeLinear", [b.constant(bias), bias_scale_name], [m], axis=0
                )
                conv_inputs.append(b_float.name)
                made.append(b_float)
            conv = b.add("Conv", conv_inputs, shape, **attributes)
            result = b.add("QuantizeLinear", [conv.name, *y_names], shape, elem)
            for value in (*made, conv):
                b.pool.remove(value)
        else:
            conv_inputs = [
                quantized.name,
                scale_name,
                point_name,
                *w_names,
                b.constant(w_point),
                *y_names,
            ]
            if bias is not None:
                conv_inputs.append(b.constant(bias))
            result = b.add("QLinearConv", conv_inputs, shape, elem, **attributes)
        b.pool.remove(result)
        if qdq and result.shape == quantized.shape and b.rng.random() < 0.5:
            result, y_scale, y_names = _quantized_residual(
                b, quantized, result, elem, [(scale_name, point_name), (y_names[0], y_names[1])]
            )
        if qdq and b.rng.random() < 0.3:
            result, y_names = _quantized_pool(b, result, elem, y_names)
        quantized, scale_name, point_name = result, y_names[0], y_names[1]
        x_scale = y_scale
    return b.add("DequantizeLinear", [quantized.name, scale_name, point_name], quantized.shape)


def _quantized_residual(
    b: Builder, x: Value, y: Value, elem: int, parameters: list[tuple[str, str]]
) -> tuple[Value, float, list[str]]:
    """A residual connection in QDQ form: QuantizeLinear(DequantizeLinear(y)
    + DequantizeLinear(x)), requantized with a power-of-two scale (the sum,
    exact in float, rounds alike in every form of it); the result, its scale
    and its scale and zero point's names."""
    dequantized = [
        b.add("DequantizeLinear", [value.name, *names], value.shape)
        for value, names in zip((x, y), parameters, strict=True)
    ]
    total = b.add("Add", [d.name for d in dequantized], y.shape)
    scale = _scales(b, 1, True, 0.05)[0]
    center = 0 if elem == TensorProto.INT8 else 128
    point = np.array(center + int(b.rng.integers(-30, 31)), _numpy(elem))
    names = [b.constant(np.array(scale)), b.constant(point)]
    result = b.add("QuantizeLinear", [total.name, *names], y.shape, elem)
    for value in (*dequantized, total, result):
        b.pool.remove(value)
    return result, float(scale), names


def _quantized_pool(b: Builder, x: Value, elem: int, names: list[str]) -> tuple[Value, list[str]]:
    """An AveragePool in QDQ form, requantized at x's scale (as onnxruntime's
    quantizer writes one), over the whole map (DS-CNN's) or a 2x2 or 3x3
    window, padded or not, the padding counted or not; the result and its
    scale and zero point's names. The output's zero point is even:
    onnxruntime runs the chain as its QLinearAveragePool, which adds the
    zero point before rounding half to even where QuantizeLinear adds it
    after, so at a tie an odd zero point moves its result by a step (onnxc
    follows QuantizeLinear, as onnx.reference does)."""
    n, c, h, w = x.shape
    k = [h, w] if b.rng.random() < 0.3 else [int(b.rng.choice([2, 3]))] * 2
    s = 1 if k == [h, w] else int(b.rng.choice([1, 2]))
    pad = int(b.rng.integers(0, 2)) if k == [3, 3] else 0
    oh, ow = (h + 2 * pad - k[0]) // s + 1, (w + 2 * pad - k[1]) // s + 1
    if oh < 1 or ow < 1:
        return x, names
    dequantized = b.add("DequantizeLinear", [x.name, *names], x.shape)
    pooled = b.add(
        "AveragePool",
        [dequantized.name],
        [n, c, oh, ow],
        kernel_shape=k,
        strides=[s, s],
        pads=[pad] * 4,
        count_include_pad=int(b.rng.integers(2)),
    )
    center = 0 if elem == TensorProto.INT8 else 128
    point = np.array(center + 2 * int(b.rng.integers(-15, 16)), _numpy(elem))
    y_names = [names[0], b.constant(point)]
    result = b.add("QuantizeLinear", [pooled.name, *y_names], pooled.shape, elem)
    for value in (dequantized, pooled, result):
        b.pool.remove(value)
    return result, y_names


OPERATORS: dict[str, tuple[Callable[[Builder], Value | None], float, bool]] = {
    # name: (generator, weight, allowed on int32 graphs)
    "unary": (unary, 2.0, True),
    "binary": (binary, 2.5, True),
    "conv": (conv, 2.0, False),
    "conv1d": (conv1d, 1.0, False),
    "conv_transpose": (conv_transpose, 0.8, False),
    "batch_norm": (batch_norm, 0.5, False),
    "pool": (pool, 1.0, False),
    "matmul": (matmul, 2.0, False),
    "gemm": (gemm, 1.0, False),
    "transpose": (transpose, 2.0, True),
    "reshape": (reshape, 1.5, True),
    "slice": (slice_, 1.0, True),
    "concat": (concat, 1.0, True),
    "reduce": (reduce, 1.0, False),
    "softmax": (softmax, 1.0, False),
    "layer_norm": (layer_norm, 0.5, False),
    "squeeze": (squeeze, 0.7, True),
    "quantize": (quantize, 0.7, False),
    "quantized_conv": (quantized_conv, 0.7, False),
    "recurrent": (recurrent, 0.7, False),
}


@dataclass
class Case:
    """One generated graph and how to run it."""

    seed: int
    model: onnx.ModelProto
    feeds: dict[str, np.ndarray]


def generate(seed: int) -> Case:
    """The graph of `seed` (the same graph for the same seed and onnxc)."""
    rng = np.random.default_rng(seed)
    kind = rng.random()
    elem = TensorProto.INT32 if kind < 0.06 else TensorProto.FLOAT16 if kind < 0.1 else FLOAT
    b = Builder(rng, elem)
    if elem == FLOAT and rng.random() < 0.6:  # an image
        b.new_input(
            [
                int(rng.choice([1, 1, 2])),
                int(rng.choice([1, 3, 4, 8, 16])),
                int(rng.integers(1, 13)),
                int(rng.integers(1, 13)),
            ]
        )
    else:  # rows: a sequence of vectors
        b.new_input([int(d) for d in rng.integers(1, 9, size=int(rng.integers(2, 5)))])
    names = [n for n, (_, _, ints) in OPERATORS.items() if ints or elem == FLOAT]
    weights = np.array([OPERATORS[n][1] for n in names])
    target = int(rng.integers(2, 16))
    tries = 0
    while len(b.nodes) < target and tries < 200:
        tries += 1
        made = OPERATORS[str(rng.choice(names, p=weights / weights.sum()))][0](b)
        if made is not None and _size(made.shape) > 50_000:
            b.nodes.pop()
            b.pool.remove(made)
    last = b.pool[-1]
    outputs = [last] + [v for v in b.pool[len(b.inputs) : -1] if rng.random() < 0.15][:2]
    free = elem == FLOAT and rng.random() < 0.2  # a named batch dimension, sized at run time
    model = _model(b, outputs, free)
    feeds = {v.name: _feed(rng, v) for v in b.inputs}
    return Case(seed, model, feeds)


def _feed(rng: np.random.Generator, value: Value) -> np.ndarray:
    if value.elem == TensorProto.INT32:
        return rng.integers(-5, 6, size=value.shape).astype(np.int32)
    return rng.standard_normal(value.shape).astype(_numpy(value.elem))


def _model(b: Builder, outputs: list[Value], free: bool) -> onnx.ModelProto:
    def info(v: Value, batch: bool) -> onnx.ValueInfoProto:
        shape: list[int | str] = list(v.shape)
        if batch and shape:
            shape[0] = "N"
        return helper.make_tensor_value_info(v.name, v.elem, shape)

    first_dim = b.inputs[0].shape[0] if b.inputs[0].shape else None
    free = free and all(v.shape and v.shape[0] == first_dim for v in b.inputs)
    graph = helper.make_graph(
        b.nodes,
        "fuzz",
        [info(v, free) for v in b.inputs],
        [
            helper.make_tensor_value_info(v.name, v.elem, [None] * len(v.shape))
            for v in dict((o.name, o) for o in outputs).values()
        ],
        initializer=[numpy_helper.from_array(a, n) for n, a in b.weights.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=9)


# --- running ------------------------------------------------------------------


SKIPPED = frozenset({"reference", "unsupported", "spec"})
"""Outcomes that are not failures: onnxruntime refused the graph, onnxc
refused it with an `UnsupportedError` (a stated limit, one line), or
onnxc's outputs differ from onnxruntime's but equal onnx.reference's (the
spec decides: onnxruntime's QLinearAveragePool, which it runs for a QDQ
AveragePool, adds the zero point before rounding)."""


@dataclass
class Outcome:
    """What comparing one graph gave: None when it matched."""

    kind: str  # "mismatch", "crash", "compile", "unsupported", "reference"
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


def expected(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(
        exact_integer_products(model).SerializeToString(),
        options,
        providers=["CPUExecutionProvider"],
    )
    names = [o.name for o in model.graph.output]
    return {n: np.asarray(v) for n, v in zip(names, session.run(names, feeds), strict=True)}


def _in_child(
    run: Callable[[], dict[str, np.ndarray]], timeout: float = 120.0
) -> dict[str, np.ndarray] | Outcome:
    """`run()` in a forked child (`onnxc.forked`): its outputs, or how the
    child ended; a hang when no child answered within `timeout` seconds."""

    def child(pipe: int) -> None:  # run, send the outputs, leave without cleanup
        try:
            payload = pickle.dumps(("ok", run()))
        except BaseException as error:  # noqa: BLE001 - reported to the parent
            payload = pickle.dumps(("error", f"{type(error).__name__}: {error}"))
        with os.fdopen(pipe, "wb") as stream:
            stream.write(payload)
        os._exit(0)

    result = run_forked(child, timeout)
    if not result.answered:
        return Outcome("hang", f"no answer in {timeout:.0f} s, twice")
    if result.signal is not None:
        return Outcome("crash", f"signal {result.signal}")
    if result.exit_status != 0 or not result.data:
        return Outcome("crash", f"exit status {result.exit_status}")
    kind, value = pickle.loads(result.data)
    if kind == "error":
        return Outcome("crash", value)
    return value


def check(model: onnx.ModelProto, feeds: dict[str, np.ndarray], target: str) -> Outcome | None:
    """Compile `model` for `target`, run it on `feeds` and compare with
    onnxruntime; None when every output matches."""
    import onnxc
    from onnxc.errors import OnnxcError, UnsupportedError

    try:
        want = expected(model, feeds)
    except Exception as error:  # noqa: BLE001 - a graph the reference refuses is not ours to judge
        return Outcome("reference", str(error).splitlines()[0][:200])
    try:
        compiled = onnxc.compile(model, target=target, name="fuzz", cache=False)
    except UnsupportedError as error:  # a stated limit, not a defect: counted apart
        return Outcome("unsupported", str(error)[:300])
    except OnnxcError as error:
        return Outcome("compile", str(error)[:300])
    except Exception:  # noqa: BLE001 - a traceback is a finding
        return Outcome("compile", traceback.format_exc().strip().splitlines()[-1][:300])
    got = _in_child(lambda: compiled.run(feeds))
    if isinstance(got, Outcome):
        return got
    found = _differences(got, want)
    if found is not None and _differences(got, _specified(model, feeds)) is None:
        return Outcome("spec", f"onnxruntime differs from onnx.reference: {found}")
    return found


def _specified(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """onnx.reference's outputs of `model` (at the opset its operators
    have; none when it cannot run the graph)."""
    from onnx.reference import ReferenceEvaluator

    try:
        converted = onnx.version_converter.convert_version(model, SPEC_OPSET)
        outputs = ReferenceEvaluator(converted).run(None, feeds)
    except Exception:  # noqa: BLE001 - no verdict: the mismatch stands
        return {}
    names = [o.name for o in model.graph.output]
    return {n: np.asarray(v) for n, v in zip(names, outputs, strict=True)}


def _differences(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> Outcome | None:
    """How `got` differs from `want` (every output of `want`), if it does."""
    if not want:
        return Outcome("mismatch", "no outputs to compare")
    for name, reference in want.items():
        value = got[name]
        if value.shape != reference.shape or value.dtype != reference.dtype:
            got_type = f"{value.dtype}{list(value.shape)}"
            want_type = f"{reference.dtype}{list(reference.shape)}"
            return Outcome("mismatch", f"{name}: {got_type} vs {want_type}")
        if reference.dtype.kind in "iub":
            if not np.array_equal(value, reference):
                return Outcome("mismatch", f"{name}: integers differ")
            continue
        scale = max(1.0, float(np.max(np.abs(reference.astype(np.float64)), initial=0.0)))
        rtol = 1e-2 if reference.dtype == np.float16 else RTOL
        close = np.isclose(
            value.astype(np.float64),
            reference.astype(np.float64),
            rtol=rtol,
            atol=rtol * scale,
            equal_nan=True,
        )
        if not close.all():
            worst = float(np.nanmax(np.abs(value.astype(np.float64) - reference)))
            return Outcome(
                "mismatch",
                f"{name}: {int((~close).sum())} of {close.size} differ, max abs {worst:.3g}",
            )
    return None


# --- minimising ---------------------------------------------------------------


def _producers(graph: onnx.GraphProto) -> dict[str, onnx.NodeProto]:
    return {o: n for n in graph.node for o in n.output}


def _types(model: onnx.ModelProto) -> dict[str, onnx.TypeProto]:
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    g = inferred.graph
    return {v.name: v.type for v in [*g.input, *g.value_info, *g.output]}


def _cut(model: onnx.ModelProto, output: str) -> onnx.ModelProto:
    """The graph up to `output` only."""
    graph = model.graph
    producers = _producers(graph)
    needed: set[str] = set()
    stack = [output]
    while stack:
        name = stack.pop()
        if name in needed:
            continue
        needed.add(name)
        if name in producers:
            stack.extend(i for i in producers[name].input if i)
    types = _types(model)
    nodes = [n for n in graph.node if any(o in needed for o in n.output)]
    new = helper.make_graph(
        nodes,
        graph.name,
        [i for i in graph.input if i.name in needed],
        [helper.make_value_info(output, types[output])],
        initializer=[t for t in graph.initializer if t.name in needed],
    )
    return helper.make_model(new, opset_imports=model.opset_import, ir_version=model.ir_version)


def _as_input(model: onnx.ModelProto, index: int) -> tuple[onnx.ModelProto, str] | None:
    """Node `index` removed, its result a graph input instead."""
    graph = model.graph
    node = graph.node[index]
    if len(node.output) != 1:
        return None
    types = _types(model)
    name = node.output[0]
    if name in {o.name for o in graph.output}:
        return None
    nodes = [n for i, n in enumerate(graph.node) if i != index]
    used = {i for n in nodes for i in n.input}
    new = helper.make_graph(
        nodes,
        graph.name,
        [i for i in graph.input if i.name in used] + [helper.make_value_info(name, types[name])],
        list(graph.output),
        initializer=[t for t in graph.initializer if t.name in used],
    )
    return helper.make_model(
        new, opset_imports=model.opset_import, ir_version=model.ir_version
    ), name


def _feeds_for(
    model: onnx.ModelProto, old: dict[str, np.ndarray], seed: int
) -> dict[str, np.ndarray]:
    """Inputs for `model`: the old ones where they still are, the values the
    original graph computed for inputs that were nodes (so that the failing
    values stay), random ones otherwise."""
    rng = np.random.default_rng(seed)
    feeds = {}
    for value in model.graph.input:
        if value.name in old:
            feeds[value.name] = old[value.name]
            continue
        t = value.type.tensor_type
        shape = [d.dim_value for d in t.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(t.elem_type)
        feeds[value.name] = (
            rng.integers(-5, 6, size=shape) if dtype.kind in "iu" else rng.standard_normal(shape)
        ).astype(dtype)
    return feeds


def _intermediates(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every value the graph computes (with onnxruntime), by name."""
    types = _types(model)
    every = onnx.ModelProto()
    every.CopyFrom(model)
    outputs = {o.name for o in every.graph.output}
    for node in every.graph.node:
        for name in node.output:
            if name and name not in outputs:  # "": an optional output left out
                every.graph.output.append(helper.make_value_info(name, types[name]))
    return expected(every, feeds)


def minimise(
    case: Case, target: str, failure: Outcome
) -> tuple[onnx.ModelProto, dict[str, np.ndarray], Outcome]:
    """The smallest graph (by the reductions above) that still fails the same
    way (same kind of outcome)."""
    model, feeds = case.model, dict(case.feeds)
    values = {**feeds, **_intermediates(model, feeds)}

    def fails(candidate: onnx.ModelProto) -> Outcome | None:
        try:
            onnx.checker.check_model(candidate)
        except Exception:  # noqa: BLE001 - not a valid reduction
            return None
        outcome = check(candidate, _feeds_for(candidate, values, case.seed), target)
        return outcome if outcome is not None and outcome.kind == failure.kind else None

    for output in [o.name for o in model.graph.output]:  # one output
        if len(model.graph.output) == 1:
            break
        cut = _cut(model, output)
        found = fails(cut)
        if found is not None:
            model, failure = cut, found
            break
    changed = True
    while changed:
        changed = False
        for index in range(len(model.graph.node)):
            reduced = _as_input(model, index)
            if reduced is None:
                continue
            found = fails(reduced[0])
            if found is not None:
                model, failure, changed = reduced[0], found, True
                break
        if not changed and len(model.graph.node) > 1:  # drop what the output does not need
            cut = _cut(model, model.graph.output[0].name)
            if len(cut.graph.node) < len(model.graph.node) and fails(cut) is not None:
                model, changed = cut, True
    return model, _feeds_for(model, values, case.seed), failure


def save_regression(
    model: onnx.ModelProto, feeds: dict[str, np.ndarray], target: str, label: str
) -> Path:
    """Write the minimised graph and its inputs as a regression case."""
    REGRESSIONS.mkdir(exist_ok=True)
    path = REGRESSIONS / f"{label}.onnx"
    model.doc_string = f"target={target}"
    onnx.save(model, path)
    np.savez(path.with_suffix(".npz"), allow_pickle=False, **feeds)
    return path


# --- campaigns ----------------------------------------------------------------


def _targets_of(case: Case, targets: Sequence[str], mcu_every: int) -> list[str]:
    """`targets`, and cortex-m4 for every `mcu_every`th seed without a free dimension."""
    free = any(d.dim_param for i in case.model.graph.input for d in i.type.tensor_type.shape.dim)
    mcu = mcu_every and case.seed % mcu_every == 0 and not free
    return [*targets, "cortex-m4"] if mcu else list(targets)


def _check_seed(
    seed: int, targets: Sequence[str], mcu_every: int
) -> list[tuple[str, Outcome | None]]:
    """Every target's outcome for the graph of `seed`."""
    case = generate(seed)
    return [(t, check(case.model, case.feeds, t)) for t in _targets_of(case, targets, mcu_every)]


def _outcomes(
    seeds: Sequence[int], targets: Sequence[str], mcu_every: int, jobs: int
) -> Iterator[tuple[int, list[tuple[str, Outcome | None]]]]:
    """Each seed's outcomes, in seed order, from `jobs` worker processes."""
    if jobs <= 1:
        for seed in seeds:
            yield seed, _check_seed(seed, targets, mcu_every)
        return
    work = functools.partial(_check_seed, targets=targets, mcu_every=mcu_every)
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        yield from zip(seeds, pool.imap(work, seeds), strict=True)


def campaign(
    seeds: Sequence[int],
    targets: Sequence[str],
    minutes: float | None,
    save: bool,
    mcu_every: int,
    jobs: int = 1,
) -> int:
    start = time.monotonic()
    failures = 0
    ran = 0
    graphs = 0
    skipped: dict[str, int] = {}
    for seed, outcomes in _outcomes(seeds, targets, mcu_every, jobs):
        if minutes is not None and time.monotonic() - start > minutes * 60:
            break
        graphs += 1
        for target, outcome in outcomes:
            ran += 1
            if outcome is None or outcome.kind in SKIPPED:
                if outcome is not None:
                    skipped[outcome.kind] = skipped.get(outcome.kind, 0) + 1
                continue
            failures += 1
            print(f"seed {seed} {target}: {outcome}", flush=True)
            if save:
                small, feeds, final = minimise(generate(seed), target, outcome)
                path = save_regression(small, feeds, target, f"seed{seed}_{target}")
                print(f"  minimised to {len(small.graph.node)} nodes: {path} ({final})", flush=True)
        if seed % 50 == 0:
            print(
                f"[{time.monotonic() - start:.0f} s] seed {seed}, {graphs} graphs, {ran} runs, "
                f"{failures} failures",
                flush=True,
            )
    print(
        f"{graphs} graphs, {ran} runs, {failures} failures, {time.monotonic() - start:.0f} s; "
        f"not judged: {skipped}"
    )
    return 1 if failures else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.fuzz.graphs",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--seeds", default="0:1000000", help="START:END (end excluded)")
    parser.add_argument("--minutes", type=float, help="stop after this long")
    parser.add_argument("--targets", default="host,host-portable")
    parser.add_argument(
        "--mcu-every", type=int, default=50, help="also cortex-m4 for every Nth seed (0: never)"
    )
    parser.add_argument(
        "--no-save", action="store_true", help="report failures without minimising them"
    )
    parser.add_argument("--jobs", type=int, default=1, help="graphs checked at once (processes)")
    parser.add_argument("--show", type=int, metavar="SEED", help="print the graph of SEED and exit")
    args = parser.parse_args(argv)
    if args.show is not None:
        print(onnx.printer.to_text(generate(args.show).model))
        return 0
    start, end = (int(x) for x in args.seeds.split(":"))
    return campaign(
        range(start, end),
        args.targets.split(","),
        args.minutes,
        not args.no_save,
        args.mcu_every,
        args.jobs,
    )


if __name__ == "__main__":
    sys.exit(main())
