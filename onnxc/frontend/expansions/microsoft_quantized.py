"""com.microsoft MatMulNBits as the default-domain DequantizeLinear of its
weights and a MatMul (semantics: onnxruntime's contrib operator
documentation and its 1.32 CPU kernel).

Y = A @ W^T (+ bias), W (N, K) dequantized by blocks of block_size along K:
W[n, k] = (B[n, k] - zero_point[n, k / block_size]) * scales[n, k / block_size].
B packs the `bits`-bit values (2, 4 or 8) of each row's blocks, the first
in the low bits of a byte, as uint8 (N, ceil(K / block_size), block_size *
bits / 8); K need not fill the last block. The zero points are uint8
packed like B (N, ceil(blocks * bits / 8)), or of the scales' type (N,
blocks); without them, 2^(bits - 1). accuracy_level is ignored: it only
chooses onnxruntime's internal precision.

B and packed zero points must be initializers: they are unpacked here into
a (K, N) weight of the `bits`-bit unsigned type and zero points of that
type (blocks, N), which the default DequantizeLinear (axis 0, block_size)
reads with the scales (which may be computed). Zero points of the scales'
type that are whole numbers within the range become that type too; others
dequantize the weight here, to the scales' type. onnxc's constant folding
evaluates the DequantizeLinear of constants, so the C holds the weight as
the scales' type (a float per weight, where the model had `bits`): keeping
it packed needs a kernel that dequantizes as it multiplies.

Refused with a one-line error: a B or zero points that are not
initializers, g_idx, weight_prepacked, other bit widths, and a B, scales or
zero points whose sizes contradict K, N, bits and block_size.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from onnxc.frontend.expansions.expander import Expander, Expansions

UNSIGNED = {2: ml_dtypes.uint2, 4: ml_dtypes.uint4, 8: np.uint8}
"""The element type of a weight of each bit width."""


def _matmul_nbits(x: Expander) -> None:
    """See the module docstring."""
    if x.input(4) is not None:
        raise x.refuse("its input 4 (g_idx, deprecated) is not supported")
    if x.int_attribute("weight_prepacked", 0):
        raise x.refuse("weight_prepacked is not supported")
    bits, size = x.int_attribute("bits", 4), x.int_attribute("block_size")
    rows, depth = x.int_attribute("N"), x.int_attribute("K")
    if bits not in UNSIGNED:
        raise x.refuse(f"bits {bits} is not supported (2, 4 or 8)")
    if size <= 0 or rows <= 0 or depth <= 0:
        raise x.refuse("K, N and block_size must be positive")
    blocks = -(-depth // size)
    packed = x.constant_value(x.needed(1, "B"))
    if packed is None:
        raise x.refuse("its input 1 (B) must be an initializer")
    if packed.dtype != np.uint8 or packed.size != rows * blocks * size * bits // 8:
        raise x.refuse(
            f"B must be uint8 (N {rows}, {blocks} blocks, {size * bits // 8} bytes), "
            f"not {packed.dtype} {list(packed.shape)}"
        )
    weight = _unpacked(packed.reshape(rows, -1), bits, depth)
    scales = x.needed(2, "scales")
    zeros = _zero_points(x, bits, rows, blocks)
    known = x.constant_value(scales)
    if known is not None and known.size != rows * blocks:
        raise x.refuse(f"scales must hold N {rows} x {blocks} blocks, not {list(known.shape)}")
    if zeros is not None and zeros.dtype.kind == "f":
        if known is None:
            raise x.refuse("zero points that are not whole numbers need initializer scales")
        dequantized = _dequantized(weight, zeros, known.reshape(rows, blocks), size)
        dense = x.constant(dequantized.T.copy(), "weight")
    else:
        level = np.full((rows, blocks), 2 ** (bits - 1), np.uint8) if zeros is None else zeros
        quantized = x.constant(weight.T.astype(UNSIGNED[bits]), "weight")
        offsets = x.constant(level.T.astype(UNSIGNED[bits]), "zero_points")
        shaped = x.op("Reshape", scales, x.constant([rows, blocks], "blocks"))
        by_column = x.op("Transpose", shaped, perm=[1, 0])
        dense = x.op("DequantizeLinear", quantized, by_column, offsets, axis=0, block_size=size)
    data = x.needed(0, "A")
    bias = x.input(5)
    if bias is None:
        x.add("MatMul", [data, dense], [x.node.output[0]])
        return
    x.add("Add", [x.op("MatMul", data, dense), bias], [x.node.output[0]])


def _unpacked(packed: np.ndarray, bits: int, count: int) -> np.ndarray:
    """The first `count` `bits`-bit values of each row of uint8 `packed`,
    the first in a byte's low bits (uint8)."""
    per_byte = 8 // bits
    shifts = (np.arange(per_byte) * bits).astype(np.uint8)
    values = (packed[..., None] >> shifts) & np.uint8((1 << bits) - 1)
    return values.reshape(*packed.shape[:-1], -1)[..., :count]


def _zero_points(x: Expander, bits: int, rows: int, blocks: int) -> np.ndarray | None:
    """The zero points (rows, blocks): uint8 values, floats of the scales'
    type when they are not whole numbers of the range, None when absent."""
    name = x.input(3)
    if name is None:
        return None
    value = x.constant_value(name)
    if value is None:
        raise x.refuse("its input 3 (zero_points) must be an initializer")
    if value.dtype == np.uint8:
        stride = -(-blocks * bits // 8)
        if value.size != rows * stride:
            raise x.refuse(
                f"packed zero_points must be (N {rows}, {stride}), not {list(value.shape)}"
            )
        return _unpacked(value.reshape(rows, stride), bits, blocks)
    if value.size != rows * blocks:
        raise x.refuse(f"zero_points must be (N {rows}, {blocks}), not {list(value.shape)}")
    levels = value.reshape(rows, blocks)
    whole = np.all((levels == np.round(levels)) & (levels >= 0) & (levels < 2**bits))
    return levels.astype(np.uint8) if whole else levels


def _dequantized(
    weight: np.ndarray, zeros: np.ndarray, scales: np.ndarray, size: int
) -> np.ndarray:
    """(weight - zero point) * scale (N, K) in float, as the scales' type."""
    depth = weight.shape[1]
    offset = np.repeat(zeros.astype(np.float32), size, axis=1)[:, :depth]
    scale = np.repeat(scales.astype(np.float32), size, axis=1)[:, :depth]
    return ((weight.astype(np.float32) - offset) * scale).astype(scales.dtype)


EXPANSIONS: Expansions = {"MatMulNBits": _matmul_nbits}
