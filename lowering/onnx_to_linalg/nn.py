"""Neural-network operators: convolution, pooling and batch normalization.

Every window operator reads a padded copy of its input when it needs padding
(so no read leaves its buffer), then reduces over its window with one
`linalg.generic` whose input map is `out * stride + tap * dilation` per spatial
dim. Each loop dim is a bare result of some operand's map, as
`convert-linalg-to-loops` reads loop bounds from operand shapes: Conv views its
buffers as `[N, G, M/G, ...]` / `[G, M/G, C/G, ...]` with `memref.expand_shape`,
pooling passes a window-shaped buffer that the body never reads (the way MLIR's
`linalg.pooling_*` ops do). Divisors and folded normalization constants are
computed with numpy at compile time and stored as `memref.global` weights.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    MemRefType,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from onnxc.dialects import onnx
from onnxc.lowering.onnx_to_linalg.common import (
    PARALLEL,
    REDUCTION,
    alloc,
    buffer_of,
    constant_value,
    fill,
    float_constant,
    generic,
    identity_map,
    insert,
    is_none,
    replace_with_buffers,
    shape_of,
    unsupported,
    weight,
)

# --------------------------------------------------------------------------
# Window geometry


@dataclass(frozen=True)
class Window:
    """The geometry of a sliding-window operator over the spatial dims: the
    output extent, and where each window starts (`out * stride - pads_begin`
    in input coordinates)."""

    input_shape: tuple[int, ...]
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    output_shape: tuple[int, ...]

    @property
    def rank(self) -> int:
        return len(self.kernel)

    def padded_shape(self) -> tuple[int, ...]:
        """Extent a padded input needs: every window tap of every output, and
        the whole input after the begin padding."""
        return tuple(
            max((o - 1) * s + (k - 1) * d + 1, b + i)
            for o, s, k, d, b, i in zip(
                self.output_shape,
                self.strides,
                self.kernel,
                self.dilations,
                self.pads_begin,
                self.input_shape,
                strict=True,
            )
        )

    def needs_padding(self) -> bool:
        return self.padded_shape() != self.input_shape or any(self.pads_begin)

    def taps(self, dim: int, out: int) -> list[int]:
        """Input coordinates of the window taps of output `out` along `dim`."""
        start = out * self.strides[dim] - self.pads_begin[dim]
        return [start + k * self.dilations[dim] for k in range(self.kernel[dim])]


def _ints(op: onnx.OnnxOp, name: str, rank: int, default: int) -> tuple[int, ...]:
    value = op.attr(name)
    if value is None or len(value) == 0:
        return (default,) * rank
    if len(value) != rank:
        raise unsupported(op, f"'{name}' has {len(value)} values, expected {rank}")
    return tuple(int(v) for v in value)


def window_of(
    op: onnx.OnnxOp,
    input_shape: Sequence[int],
    kernel: Sequence[int],
    output_shape: Sequence[int],
    ceil_mode: bool = False,
) -> Window:
    """Resolve pads (explicit or `auto_pad`), strides and dilations of `op`,
    and check that the output extent they give is the inferred one."""
    rank = len(kernel)
    strides = _ints(op, "strides", rank, 1)
    dilations = _ints(op, "dilations", rank, 1)
    if any(s < 1 for s in strides) or any(d < 1 for d in dilations):
        raise unsupported(op, "strides and dilations must be positive")
    spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=True)]
    auto_pad = op.attr("auto_pad") or "NOTSET"
    if auto_pad == "NOTSET":
        pads = _ints(op, "pads", 2 * rank, 0)
        begin, end = pads[:rank], pads[rank:]
        if any(p < 0 for p in pads):
            raise unsupported(op, "negative pads are not supported")
        expected: list[int] = []
        for i in range(rank):
            extent = input_shape[i] + begin[i] + end[i] - spans[i]
            if ceil_mode:
                out = -(-extent // strides[i]) + 1
                # The last window must start inside the input or its begin padding.
                if (out - 1) * strides[i] >= input_shape[i] + begin[i]:
                    out -= 1
            else:
                out = extent // strides[i] + 1
            expected.append(out)
    elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        expected = [-(-n // s) for n, s in zip(input_shape, strides, strict=True)]
        total = [
            max(0, (o - 1) * s + span - n)
            for o, s, span, n in zip(expected, strides, spans, input_shape, strict=True)
        ]
        if auto_pad == "SAME_UPPER":
            begin = tuple(t // 2 for t in total)
        else:
            begin = tuple(t - t // 2 for t in total)
        end = tuple(t - b for t, b in zip(total, begin, strict=True))
    elif auto_pad == "VALID":
        begin = end = (0,) * rank
        expected = [
            (n - span) // s + 1 for n, span, s in zip(input_shape, spans, strides, strict=True)
        ]
    else:
        raise unsupported(op, f"unknown auto_pad '{auto_pad}'")
    if tuple(expected) != tuple(output_shape):
        raise unsupported(
            op,
            f"output spatial shape {tuple(output_shape)} differs from the "
            f"{tuple(expected)} its attributes give",
        )
    return Window(
        tuple(input_shape),
        tuple(kernel),
        strides,
        dilations,
        tuple(begin),
        tuple(end),
        tuple(output_shape),
    )


def window_expr(window: Window, out_dim: int, tap_dim: int, axis: int) -> AffineExpr:
    """`out * stride + tap * dilation`: a padded-input index along `axis`."""
    return (
        AffineDimExpr(out_dim) * window.strides[axis]
        + AffineDimExpr(tap_dim) * window.dilations[axis]
    )


# --------------------------------------------------------------------------
# Buffers


def _element_type(value: SSAValue) -> Attribute:
    value_type = value.type
    assert isinstance(value_type, MemRefType)
    return value_type.get_element_type()


def padded(
    rewriter: PatternRewriter,
    source: onnx.OnnxOp,
    input_buffer: SSAValue,
    window: Window,
    value: float,
) -> SSAValue:
    """`input_buffer` ([N, C, *spatial]) inside a buffer filled with `value`,
    its spatial dims offset by the begin pads; the input itself when no
    padding is needed."""
    if not window.needs_padding():
        return input_buffer
    shape = shape_of(input_buffer)
    padded_type = MemRefType(_element_type(input_buffer), [*shape[:2], *window.padded_shape()])
    buffer = alloc(rewriter, padded_type)
    fill(rewriter, source, buffer, value)
    rank = len(shape)
    offsets = (0, 0, *window.pads_begin)
    # A bare `dN` result must span its whole dim, so a spatial dim that the
    # copy fills only partly (end padding only) keeps an explicit `dN + 0`.
    shifted = AffineMap(
        rank,
        0,
        tuple(
            AffineBinaryOpExpr(
                AffineBinaryOpKind.Add, AffineDimExpr(i), AffineConstantExpr(offsets[i])
            )
            if i >= 2
            else AffineDimExpr(i)
            for i in range(rank)
        ),
    )
    generic(
        rewriter,
        source,
        [input_buffer],
        [buffer],
        [identity_map(rank), shifted],
        [PARALLEL] * rank,
        lambda b, args: args[0],
    )
    return buffer


def expand(
    rewriter: PatternRewriter,
    source: onnx.OnnxOp,
    buffer: SSAValue,
    reassociation: Sequence[Sequence[int]],
    shape: Sequence[int],
) -> SSAValue:
    """A `memref.expand_shape` view of `buffer` with the static `shape`."""
    view = memref.ExpandShapeOp.build(
        operands=[buffer, []],
        result_types=[MemRefType(_element_type(buffer), list(shape))],
        properties={
            "reassociation": ArrayAttr(
                [ArrayAttr([IntegerAttr(i, i64) for i in group]) for group in reassociation]
            ),
            "static_output_shape": DenseArrayBase.from_list(i64, list(shape)),
        },
    )
    insert(rewriter, view, source)
    return view.result


def _check_float(op: onnx.OnnxOp, value: SSAValue) -> None:
    element_type = value.type.get_element_type()  # type: ignore[attr-defined]
    if not isinstance(element_type, AnyFloat):
        raise unsupported(op, f"element type {element_type} is not a float type")


def _spatial(op: onnx.OnnxOp, shape: Sequence[int], what: str) -> None:
    if len(shape) < 3:
        raise unsupported(op, f"{what} must be [N, C, spatial...], got {list(shape)}")


# --------------------------------------------------------------------------
# Convolution


class ConvOpLowering(RewritePattern):
    """`onnx.Conv` (1-D, 2-D, 3-D, ...) -> an optional zero-padded copy of X,
    the output initialised with the broadcast bias B (a generic) or zero (a
    fill), and one reduction generic over (n, g, m, o..., c, k...) with
    `X[n, g, c, o*stride + k*dilation]`, `W[g, m, c, k]` and `Y[n, g, m, o]`
    on `expand_shape` views that split channels by group (so grouped and
    depthwise convolutions keep every loop dim bare). Supports group, strides,
    dilations, explicit pads, every auto_pad and kernel_shape inferred from W;
    rejects non-float types and a kernel_shape that contradicts W."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: onnx.ConvOp, rewriter: PatternRewriter) -> None:  # type: ignore[name-defined]
        x_value, w_value, b_value = op.operands
        _check_float(op, x_value)
        x_shape, w_shape = shape_of(x_value), shape_of(w_value)
        y_shape = shape_of(op.results[0])
        _spatial(op, x_shape, "X")
        rank = len(x_shape) - 2
        n, c = x_shape[:2]
        m = w_shape[0]
        kernel = tuple(w_shape[2:])
        kernel_shape = op.attr("kernel_shape")
        if kernel_shape and tuple(kernel_shape) != kernel:
            raise unsupported(op, f"kernel_shape {kernel_shape} differs from W {w_shape}")
        group = int(op.attr("group"))
        if group < 1 or c % group or m % group or w_shape[1] * group != c:
            raise unsupported(op, f"group {group} does not fit X {x_shape} and W {w_shape}")
        window = window_of(op, x_shape[2:], kernel, y_shape[2:])

        x = padded(rewriter, op, buffer_of(rewriter, x_value), window, 0.0)
        w = buffer_of(rewriter, w_value)
        y = alloc(rewriter, op.results[0].type)
        if is_none(b_value):
            fill(rewriter, op, y, 0.0)
        else:
            if shape_of(b_value) != (m,):
                raise unsupported(op, f"B of shape {list(shape_of(b_value))} is not [M={m}]")
            bias = buffer_of(rewriter, b_value)
            y_rank = len(y_shape)
            generic(
                rewriter,
                op,
                [bias],
                [y],
                [AffineMap(y_rank, 0, (AffineDimExpr(1),)), identity_map(y_rank)],
                [PARALLEL] * y_rank,
                lambda b, args: args[0],
            )

        mg, cg = m // group, c // group
        spatial_groups = [[i + 2] for i in range(1, rank + 1)]
        x_view = expand(
            rewriter,
            op,
            x,
            [[0], [1, 2], *spatial_groups],
            [n, group, cg, *shape_of(x)[2:]],
        )
        w_view = expand(
            rewriter,
            op,
            w,
            [[0, 1], *[[i + 1] for i in range(1, rank + 2)]],
            [group, mg, *w_shape[1:]],
        )
        y_view = expand(
            rewriter,
            op,
            y,
            [[0], [1, 2], *spatial_groups],
            [n, group, mg, *y_shape[2:]],
        )
        # Loop dims: n, g, m, o_0..o_r-1, c, k_0..k_r-1.
        outs = [3 + i for i in range(rank)]
        c_dim = 3 + rank
        taps = [c_dim + 1 + i for i in range(rank)]
        num_dims = c_dim + 1 + rank
        d = AffineDimExpr
        x_map = AffineMap(
            num_dims,
            0,
            (
                d(0),
                d(1),
                d(c_dim),
                *(window_expr(window, outs[i], taps[i], i) for i in range(rank)),
            ),
        )
        w_map = AffineMap(num_dims, 0, (d(1), d(2), d(c_dim), *(d(t) for t in taps)))
        y_map = AffineMap(num_dims, 0, (d(0), d(1), d(2), *(d(o) for o in outs)))

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            product = b.insert(arith.MulfOp(args[0], args[1])).result
            return b.insert(arith.AddfOp(args[2], product)).result

        generic(
            rewriter,
            op,
            [x_view, w_view],
            [y_view],
            [x_map, w_map, y_map],
            [PARALLEL] * (3 + rank) + [REDUCTION] * (1 + rank),
            body,
        )
        replace_with_buffers(rewriter, op, [y])


# --------------------------------------------------------------------------
# Pooling


def _pool_reduction(
    rewriter: PatternRewriter,
    op: onnx.OnnxOp,
    x: SSAValue,
    y: SSAValue,
    window: Window,
    combine: type[arith.MaximumfOp] | type[arith.AddfOp],
) -> None:
    """One reduction generic over (n, c, o..., k...) combining the window
    taps of `x` (already padded) into the initialised `y`; the window-shaped
    operand only provides the bounds of the k loops."""
    rank = window.rank
    window_buffer = alloc(rewriter, MemRefType(_element_type(x), list(window.kernel)))
    num_dims = 2 + 2 * rank
    d = AffineDimExpr
    outs = [2 + i for i in range(rank)]
    taps = [2 + rank + i for i in range(rank)]
    x_map = AffineMap(
        num_dims,
        0,
        (d(0), d(1), *(window_expr(window, outs[i], taps[i], i) for i in range(rank))),
    )
    k_map = AffineMap(num_dims, 0, tuple(d(t) for t in taps))
    y_map = AffineMap(num_dims, 0, (d(0), d(1), *(d(o) for o in outs)))
    generic(
        rewriter,
        op,
        [x, window_buffer],
        [y],
        [x_map, k_map, y_map],
        [PARALLEL] * (2 + rank) + [REDUCTION] * rank,
        lambda b, args: b.insert(combine(args[2], args[0])).result,
    )


def _pool_window(op: onnx.OnnxOp) -> Window:
    x_shape, y_shape = shape_of(op.operands[0]), shape_of(op.results[0])
    _spatial(op, x_shape, "X")
    kernel_shape = op.attr("kernel_shape")
    if not kernel_shape or len(kernel_shape) != len(x_shape) - 2:
        raise unsupported(op, f"kernel_shape {kernel_shape} does not fit X {list(x_shape)}")
    ceil_mode = bool(op.attr("ceil_mode"))
    return window_of(op, x_shape[2:], kernel_shape, y_shape[2:], ceil_mode)


class MaxPoolOpLowering(RewritePattern):
    """`onnx.MaxPool` -> an optional copy of X padded with -inf (begin/end
    pads, plus end padding for the windows ceil_mode lets run past the
    input), the output filled with -inf, and one reduction generic of
    `arith.maximumf` over (n, c, o..., k...). Supports 1-D to 3-D (any rank),
    kernel_shape, strides, dilations, pads, auto_pad and ceil_mode;
    storage_order only concerns Indices. Rejects a used Indices output and
    non-float types."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: onnx.MaxPoolOp, rewriter: PatternRewriter) -> None:  # type: ignore[name-defined]
        if op.results[1].uses:
            raise unsupported(op, "the Indices output of MaxPool is not supported")
        _check_float(op, op.operands[0])
        window = _pool_window(op)
        x = padded(rewriter, op, buffer_of(rewriter, op.operands[0]), window, -math.inf)
        y = alloc(rewriter, op.results[0].type)
        fill(rewriter, op, y, -math.inf)
        _pool_reduction(rewriter, op, x, y, window, arith.MaximumfOp)
        replace_with_buffers(rewriter, op, [y, None])


def average_divisors(window: Window, count_include_pad: bool) -> np.ndarray:
    """How many taps each output's window averages (shape: the output's
    spatial shape): taps inside the input, or with count_include_pad also
    taps in the explicit padding, but never taps of the extra end padding
    that ceil_mode adds (as onnxruntime and onnx.reference count)."""
    per_dim: list[np.ndarray] = []
    for dim in range(window.rank):
        low = -window.pads_begin[dim] if count_include_pad else 0
        high = window.input_shape[dim] + (window.pads_end[dim] if count_include_pad else 0)
        per_dim.append(
            np.array(
                [
                    sum(1 for t in window.taps(dim, o) if low <= t < high)
                    for o in range(window.output_shape[dim])
                ],
                dtype=np.int64,
            )
        )
    divisors = np.ones((), dtype=np.int64)
    for counts in per_dim:
        divisors = np.multiply.outer(divisors, counts)
    return divisors


def _divide(
    rewriter: PatternRewriter,
    op: onnx.OnnxOp,
    y: SSAValue,
    divisors: np.ndarray,
) -> None:
    """y /= divisors (broadcast over N and C): a scalar constant when every
    window has the same count, else a constant weight of the spatial shape."""
    y_shape = shape_of(y)
    y_rank = len(y_shape)
    element_type = _element_type(y)
    if np.all(divisors == divisors.flat[0]):
        count = float(divisors.flat[0])

        def scalar_body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            divisor = float_constant(b, count, element_type)
            return b.insert(arith.DivfOp(args[0], divisor)).result

        generic(
            rewriter,
            op,
            [],
            [y],
            [identity_map(y_rank)],
            [PARALLEL] * y_rank,
            scalar_body,
        )
        return
    counts = weight(rewriter, op, divisors, element_type, "divisor")
    spatial_map = AffineMap(y_rank, 0, tuple(AffineDimExpr(i) for i in range(2, y_rank)))
    generic(
        rewriter,
        op,
        [counts],
        [y],
        [spatial_map, identity_map(y_rank)],
        [PARALLEL] * y_rank,
        lambda b, args: b.insert(arith.DivfOp(args[1], args[0])).result,
    )


class AveragePoolOpLowering(RewritePattern):
    """`onnx.AveragePool` -> an optional zero-padded copy of X, the output
    filled with zero, a sum-reduction generic over (n, c, o..., k...), and a
    division by the number of counted taps: a constant when all windows count
    the same, else a per-position divisor computed with numpy and stored as a
    weight (count_include_pad=0 near the border, ceil_mode windows running
    past the end). Supports any spatial rank, kernel_shape, strides, pads,
    dilations, auto_pad, ceil_mode and count_include_pad. Rejects non-float
    types."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: onnx.AveragePoolOp, rewriter: PatternRewriter) -> None:  # type: ignore[name-defined]
        _check_float(op, op.operands[0])
        window = _pool_window(op)
        divisors = average_divisors(window, bool(op.attr("count_include_pad")))
        if np.any(divisors == 0):
            raise unsupported(op, "a pooling window holds no input element")
        x = padded(rewriter, op, buffer_of(rewriter, op.operands[0]), window, 0.0)
        y = alloc(rewriter, op.results[0].type)
        fill(rewriter, op, y, 0.0)
        _pool_reduction(rewriter, op, x, y, window, arith.AddfOp)
        _divide(rewriter, op, y, divisors)
        replace_with_buffers(rewriter, op, [y])


class GlobalAveragePoolOpLowering(RewritePattern):
    """`onnx.GlobalAveragePool` -> the output ([N, C, 1, ...]) filled with
    zero, a sum-reduction generic over (n, c, spatial...) and a division by
    the spatial size. Any spatial rank; rejects non-float types."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: onnx.GlobalAveragePoolOp,  # type: ignore[name-defined]
        rewriter: PatternRewriter,
    ) -> None:
        _check_float(op, op.operands[0])
        x_shape = shape_of(op.operands[0])
        _spatial(op, x_shape, "X")
        rank = len(x_shape)
        x = buffer_of(rewriter, op.operands[0])
        y = alloc(rewriter, op.results[0].type)
        fill(rewriter, op, y, 0.0)
        y_map = AffineMap(
            rank,
            0,
            (
                AffineDimExpr(0),
                AffineDimExpr(1),
                *([AffineConstantExpr(0)] * (rank - 2)),
            ),
        )
        generic(
            rewriter,
            op,
            [x],
            [y],
            [identity_map(rank), y_map],
            [PARALLEL] * 2 + [REDUCTION] * (rank - 2),
            lambda b, args: b.insert(arith.AddfOp(args[1], args[0])).result,
        )
        _divide(rewriter, op, y, np.full((1,) * (rank - 2), math.prod(x_shape[2:])))
        replace_with_buffers(rewriter, op, [y])


# --------------------------------------------------------------------------
# Normalization


class BatchNormalizationOpLowering(RewritePattern):
    """`onnx.BatchNormalization` in inference mode (training_mode=0) on
    X [N, C, ...]. With constant scale, B, mean and var it is folded at
    compile time into `x * a[c] + b[c]` (a = scale / sqrt(var + epsilon),
    b = B - mean * a, two weights); otherwise one elementwise generic
    computes `(x - mean) / sqrt(var + epsilon) * scale + B`. Rejects
    training_mode=1 (and so the running_mean/running_var outputs) and
    non-float types."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: onnx.BatchNormalizationOp,  # type: ignore[name-defined]
        rewriter: PatternRewriter,
    ) -> None:
        if op.attr("training_mode"):
            raise unsupported(op, "training_mode=1 is not supported (inference only)")
        x_value = op.operands[0]
        _check_float(op, x_value)
        x_shape = shape_of(x_value)
        if len(x_shape) < 2:
            raise unsupported(op, f"X must be [N, C, ...], got {list(x_shape)}")
        rank = len(x_shape)
        for value, name in zip(op.operands[1:], ("scale", "B", "mean", "var"), strict=True):
            if shape_of(value) != (x_shape[1],):
                raise unsupported(
                    op,
                    f"{name} of shape {list(shape_of(value))} is not [C={x_shape[1]}]",
                )
        epsilon = float(op.attr("epsilon"))
        x = buffer_of(rewriter, x_value)
        y = alloc(rewriter, op.results[0].type)
        element_type = _element_type(x)
        channel_map = AffineMap(rank, 0, (AffineDimExpr(1),))
        params = [constant_value(v) for v in op.operands[1:]]
        folded_parameters = all(p is not None for p in params)
        if folded_parameters:
            scale, bias, mean, var = (np.asarray(p, dtype=np.float64) for p in params)  # type: ignore[arg-type]
            a = scale / np.sqrt(var + epsilon)
            b_fold = bias - mean * a
            multiplier = weight(rewriter, op, a, element_type, "multiplier")
            addend = weight(rewriter, op, b_fold, element_type, "addend")

            def folded(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
                product = b.insert(arith.MulfOp(args[0], args[1])).result
                return b.insert(arith.AddfOp(product, args[2])).result

            generic(
                rewriter,
                op,
                [x, multiplier, addend],
                [y],
                [identity_map(rank), channel_map, channel_map, identity_map(rank)],
                [PARALLEL] * rank,
                folded,
            )
        else:
            buffers = [buffer_of(rewriter, v) for v in op.operands[1:]]

            def formula(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
                x_arg, scale_arg, bias_arg, mean_arg, var_arg = args[:5]
                eps = float_constant(b, epsilon, element_type)
                centered = b.insert(arith.SubfOp(x_arg, mean_arg)).result
                shifted = b.insert(arith.AddfOp(var_arg, eps)).result
                std = b.insert(math_dialect.SqrtOp(shifted)).result
                normalized = b.insert(arith.DivfOp(centered, std)).result
                scaled = b.insert(arith.MulfOp(normalized, scale_arg)).result
                return b.insert(arith.AddfOp(scaled, bias_arg)).result

            generic(
                rewriter,
                op,
                [x, *buffers],
                [y],
                [identity_map(rank), *[channel_map] * 4, identity_map(rank)],
                [PARALLEL] * rank,
                formula,
            )
        replace_with_buffers(rewriter, op, [y, None, None])
