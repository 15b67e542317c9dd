"""Random operators: RandomUniform, RandomNormal (and their -Like forms),
Bernoulli, Multinomial, and Dropout (inference and training mode).

Every random number is `onnxc.uniform key, counter`: the runtime's
counter-based generator (SplitMix64, see `onnxc_random_bits` in
runtime_c/onnxc_runtime.h), uniform in [0, 1), a pure function of a key
fixed per node and of a counter that says which number of the node it is
(element i of the output draws counters i * n .. i * n + n - 1 when it needs
n numbers). So the generated code has no state, the numbers do not depend on
the order elements are computed in, and a model gives the same output on
every run. The key is the bits of the node's `seed` read as a double (nodes
with equal seeds draw equal numbers, as onnxruntime's do); a node without a
seed gets the CRC-32 of its name (the importer names every node), fixed at
compile time, so each unseeded node draws numbers of its own.

ONNX leaves the generator to the implementation: the numbers are not
onnxruntime's or numpy's, only their distributions are the same. Draws are
computed in float (double for double tensors): a uniform float has 24
random bits, a double 53.
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    Float32Type,
    Float64Type,
    IntegerType,
    MemRefType,
    i64,
)
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.dialects.onnxc import UniformOp
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    OnnxLowering,
    alloc,
    buffer_of,
    check,
    constant_value,
    element_type,
    fill,
    generic,
    identity_map,
    is_none,
    load_scalar,
    row_major,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant, convert
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range, index, nest
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size

RandomBody = Callable[[Builder, list[SSAValue], Sequence[SSAValue]], Sequence[SSAValue]]
"""Builds the outputs' elements from the element's uniform numbers and the
inputs' elements."""


def seed_key(op: onnx.OnnxOp) -> int:
    """The generator key of a random node (see the module docstring), as a
    signed 64-bit value."""
    seed = op.attr("seed")
    if seed is None:
        return zlib.crc32(onnx.node_name(op).encode())
    (key,) = struct.unpack("<q", struct.pack("<d", float(seed)))
    return key


def compute_type(*types: Attribute) -> Attribute:
    """The type draws are computed in: double if any of `types` is double,
    else float."""
    return Float64Type() if any(isinstance(t, Float64Type) for t in types) else Float32Type()


def uniform(b: Builder, key: int, counter: SSAValue, t: Attribute) -> SSAValue:
    """`onnxc.uniform` of the node's `key` at `counter` (an `index`), of
    type `t` (float or double)."""
    as_integer = b.insert(arith.IndexCastOp(counter, i64)).result
    return b.insert(UniformOp(constant(b, key, i64), as_integer, t)).result


def draws_at(b: Builder, key: int, linear: SSAValue, count: int, t: Attribute) -> list[SSAValue]:
    """The `count` uniform numbers of the element at row-major `linear`."""
    if count == 1:
        return [uniform(b, key, linear, t)]
    first = b.insert(arith.MuliOp(linear, index(b, count))).result
    return [
        uniform(b, key, b.insert(arith.AddiOp(first, index(b, j))).result, t) for j in range(count)
    ]


def random_generic(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    inputs: Sequence[SSAValue],
    outputs: Sequence[SSAValue],
    count: int,
    t: Attribute,
    body: RandomBody,
) -> None:
    """A parallel generic over `outputs` (and `inputs`, all of one shape)
    whose body gets `count` uniform numbers of type `t` per element."""
    size_values = [shapes.index(s) for s in shapes.sizes(outputs[0])]
    rank = len(size_values)
    key = seed_key(op)

    def inner(b: Builder, args: Sequence[SSAValue]) -> Sequence[SSAValue]:
        position = [b.insert(IndexOp(d)).result for d in range(rank)]
        linear = row_major(b, position, size_values)
        return body(b, draws_at(b, key, linear, count, t), args[: len(inputs)])

    maps = [identity_map(rank)] * (len(inputs) + len(outputs))
    generic(rewriter, op, inputs, outputs, maps, [PARALLEL] * rank, inner)


def normal(b: Builder, u: Sequence[SSAValue]) -> SSAValue:
    """A standard normal number from two uniform ones (Box-Muller):
    sqrt(-2 ln(1 - u0)) * cos(2 pi u1); 1 - u0 is in (0, 1], so the
    logarithm is finite."""
    t = u[0].type
    logarithm = scalar.LOG(b, scalar.SUB(b, constant(b, 1.0, t), u[0]))
    radius = scalar.SQRT(b, scalar.MUL(b, constant(b, -2.0, t), logarithm))
    angle = scalar.MUL(b, constant(b, 2 * math.pi, t), u[1])
    return scalar.MUL(b, radius, scalar.COS(b, angle))


class RandomPattern(OnnxLowering[onnx.OnnxOp]):
    """Base of RandomUniform, RandomNormal and their -Like forms: every
    output element is `value` of `count` uniform numbers, computed in float
    (double for double outputs) and converted to the output's type."""

    count = 1

    def sizes(self, op: onnx.OnnxOp) -> list[Size]:
        """The output's sizes: the `shape` attribute, or the input's."""
        if op.operands:
            return self.shapes.sizes(op.operands[0])
        return [int(s) for s in op.attr("shape")]

    def value(self, op: onnx.OnnxOp, b: Builder, u: list[SSAValue]) -> SSAValue:
        raise NotImplementedError(type(self).__name__)

    def rewrite(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> None:
        output = self.result_buffer(rewriter, op.results[0], self.sizes(op))
        target = element_type(output)
        t = compute_type(target)

        def body(b: Builder, u: list[SSAValue], _: Sequence[SSAValue]) -> list[SSAValue]:
            return [convert(b, self.value(op, b, u), target)]

        random_generic(rewriter, self.shapes, op, [], [output], self.count, t, body)
        self.replace(rewriter, op, [output])


class UniformPattern(RandomPattern):
    """low + (high - low) * u: uniform in [low, high) (rounding to a narrow
    output type may reach high)."""

    def value(self, op: onnx.OnnxOp, b: Builder, u: list[SSAValue]) -> SSAValue:
        low, high = float(op.attr("low")), float(op.attr("high"))
        width = scalar.MUL(b, constant(b, high - low, u[0].type), u[0])
        return scalar.ADD(b, constant(b, low, u[0].type), width)


class NormalPattern(RandomPattern):
    """mean + scale * z, z standard normal (`normal`, two draws each)."""

    count = 2

    def value(self, op: onnx.OnnxOp, b: Builder, u: list[SSAValue]) -> SSAValue:
        t = u[0].type
        spread = scalar.MUL(b, constant(b, float(op.attr("scale")), t), normal(b, u))
        return scalar.ADD(b, constant(b, float(op.attr("mean")), t), spread)


class RandomUniformOpLowering(UniformPattern):
    """`onnx.RandomUniform`: a tensor of `shape`, uniform in [low, high)."""

    source = onnx.RandomUniformOp


class RandomUniformLikeOpLowering(UniformPattern):
    """`onnx.RandomUniformLike`: RandomUniform of the input's shape."""

    source = onnx.RandomUniformLikeOp


class RandomNormalOpLowering(NormalPattern):
    """`onnx.RandomNormal`: a tensor of `shape`, normal (mean, scale)."""

    source = onnx.RandomNormalOp


class RandomNormalLikeOpLowering(NormalPattern):
    """`onnx.RandomNormalLike`: RandomNormal of the input's shape."""

    source = onnx.RandomNormalLikeOp


class BernoulliOpLowering(OnnxLowering[onnx.BernoulliOp]):
    """`onnx.Bernoulli`: 1 where u < p, else 0, in the output type (p above
    1 always gives 1, below 0 never)."""

    def rewrite(self, op: onnx.BernoulliOp, rewriter: PatternRewriter) -> None:
        output = self.result_buffer(rewriter, op.output, self.shapes.sizes(op.input))
        target = element_type(output)
        t = compute_type(element_type(op.input))

        def body(b: Builder, u: list[SSAValue], args: Sequence[SSAValue]) -> list[SSAValue]:
            hit = scalar.LESS(b, u[0], convert(b, args[0], t))
            return [convert(b, hit, target)]

        probabilities = buffer_of(rewriter, op.input)
        random_generic(rewriter, self.shapes, op, [probabilities], [output], 1, t, body)
        self.replace(rewriter, op, [output])


class MultinomialOpLowering(OnnxLowering[onnx.MultinomialOp]):
    """`onnx.Multinomial`: input [batch, classes] of unnormalized log
    probabilities -> [batch, sample_size] class indices (int32 or int64).
    Per row, a cumulative sum of exp(x - max(x)) (in a scratch buffer,
    computed in float, double for double input); sample s of row r is the
    number of cumulative sums <= u * total (u uniform, counter
    r * sample_size + s), at most classes - 1: the first class whose
    cumulative sum exceeds it, as onnxruntime's search does. A row of no
    classes is an error (ONNXC_ERR_SHAPE when known only at run time)."""

    def rewrite(self, op: onnx.MultinomialOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.input)
        if len(sizes) != 2:
            raise unsupported(op, f"input must be [batch, classes], got rank {len(sizes)}")
        batch, classes = sizes
        if classes == 0:
            raise unsupported(op, "input has no classes")
        if not isinstance(classes, int):
            check(rewriter, op, shapes.less(0, classes), "input has classes")
        samples = int(op.attr("sample_size"))
        output = self.result_buffer(rewriter, op.output, [batch, samples])
        target = element_type(output)
        t = compute_type(element_type(op.input))
        cdf = alloc(rewriter, scratch_type(t, [batch, classes]), [batch, classes])
        x = buffer_of(rewriter, op.input)
        n = shapes.index(classes)
        last = shapes.index(shapes.sub(classes, 1))
        grid = [shapes.index(batch), shapes.index(samples)]
        key = seed_key(op)
        here = builder_before(op)

        def cumulate(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            (row,) = at

            def logit(b: Builder, c: SSAValue) -> SSAValue:
                return convert(b, b.insert(memref.LoadOp.get(x, [row, c])).res, t)

            def largest(b: Builder, c: SSAValue, kept: list[SSAValue]) -> list[SSAValue]:
                return [scalar.MAX(b, kept[0], logit(b, c))]

            (top,) = for_range(b, 0, n, [constant(b, -math.inf, t)], largest)

            def running(b: Builder, c: SSAValue, total: list[SSAValue]) -> list[SSAValue]:
                grown = scalar.ADD(b, total[0], scalar.EXP(b, scalar.SUB(b, logit(b, c), top)))
                b.insert(memref.StoreOp.get(grown, cdf, [row, c]))
                return [grown]

            for_range(b, 0, n, [constant(b, 0.0, t)], running)
            return []

        def sample(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            row, s = at
            total = b.insert(memref.LoadOp.get(cdf, [row, last])).res
            linear = row_major(b, at, grid)
            point = scalar.MUL(b, uniform(b, key, linear, t), total)

            def count(b: Builder, c: SSAValue, found: list[SSAValue]) -> list[SSAValue]:
                below = scalar.LESS_OR_EQUAL(
                    b, b.insert(memref.LoadOp.get(cdf, [row, c])).res, point
                )
                step = b.insert(arith.SelectOp(below, index(b, 1), index(b, 0))).result
                return [b.insert(arith.AddiOp(found[0], step)).result]

            (found,) = for_range(b, 0, n, [index(b, 0)], count)
            chosen = b.insert(arith.MinSIOp(found, last)).result
            as_integer = b.insert(arith.IndexCastOp(chosen, IntegerType(64))).result
            b.insert(memref.StoreOp.get(convert(b, as_integer, target), output, [row, s]))
            return []

        nest(here, [batch], [], cumulate)
        nest(here, [batch, samples], [], sample)
        self.replace(rewriter, op, [output])


def scratch_type(t: Attribute, sizes: Sequence[Size]) -> MemRefType:
    """The type of a scratch buffer of `t` elements and `sizes`."""
    return MemRefType(t, [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes])


class DropoutOpLowering(OnnxLowering[onnx.DropoutOp]):
    """`onnx.Dropout`. In inference (no `training_mode`, or a constant false
    one) the output is the input and the optional mask all true. In
    training mode, element i is kept where its uniform number u >= ratio
    (the spec's reference draws it so): mask = u >= ratio and output =
    mask ? data * 1 / (1 - ratio) : 0 (computed in float, double for double
    data; a ratio of 1 drops everything). `ratio` (default 0.5) and
    `training_mode` may be computed at run time: a false training_mode then
    keeps everything, unscaled."""

    def rewrite(self, op: onnx.DropoutOp, rewriter: PatternRewriter) -> None:
        mask: SSAValue | None = None
        if not is_none(op.mask):
            mask = self.result_buffer(rewriter, op.mask, self.shapes.sizes(op.data))
        training: bool | SSAValue = False
        if not is_none(op.training_mode):
            flag = constant_value(op.training_mode)
            if flag is None:
                training = load_scalar(rewriter, op, op.training_mode)
            else:
                training = bool(flag.reshape(-1)[0])
        if training is False:
            if mask is not None:
                fill(rewriter, op, mask, 1)
            self.replace(rewriter, op, [buffer_of(rewriter, op.data), mask])
            return
        self._train(op, rewriter, None if training is True else training, mask)

    def _train(
        self,
        op: onnx.DropoutOp,
        rewriter: PatternRewriter,
        training: SSAValue | None,
        mask: SSAValue | None,
    ) -> None:
        """Training mode; `training` is the flag when it is known only at
        run time."""
        here = builder_before(op)
        data_type = element_type(op.data)
        if is_none(op.ratio):
            t = compute_type(data_type)
            ratio = constant(here, 0.5, t)
        else:
            t = compute_type(data_type, element_type(op.ratio))
            ratio = convert(here, load_scalar(rewriter, op, op.ratio), t)
        one = constant(here, 1.0, t)
        scale = scalar.DIV(here, one, scalar.SUB(here, one, ratio))
        idle: SSAValue | None = None
        if training is not None:
            scale = here.insert(arith.SelectOp(training, scale, one)).result
            idle = scalar.NOT(here, training)
        output = self.result_buffer(rewriter, op.output, self.shapes.sizes(op.data))
        outputs = [output] if mask is None else [output, mask]

        def body(b: Builder, u: list[SSAValue], args: Sequence[SSAValue]) -> list[SSAValue]:
            keep = scalar.GREATER_OR_EQUAL(b, u[0], ratio)
            if idle is not None:
                keep = scalar.OR(b, keep, idle)
            scaled = scalar.MUL(b, convert(b, args[0], t), scale)
            kept = b.insert(arith.SelectOp(keep, scaled, constant(b, 0.0, t))).result
            return [convert(b, kept, data_type), keep][: len(outputs)]

        data = buffer_of(rewriter, op.data)
        random_generic(rewriter, self.shapes, op, [data], outputs, 1, t, body)
        self.replace(rewriter, op, [output, mask])
