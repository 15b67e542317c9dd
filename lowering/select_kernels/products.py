"""The matrix products of `select-kernels`: float32 MatMul, and the Gemm the
1x1 convolution kernel leaves, into `kernel.matmul`, with their epilogues fused.

- A constant 2-D B (MatMul's, or a Gemm's with alpha 1, no transA, and a C
  of N elements with beta 1 or none) is packed at compile time as
  `[ceil(N/b), K, b]` (b: two vectors of lanes with 32 vector registers);
  A's leading dimensions become rows (A is `[1, M', K]`).
- A B computed at run time is read row-major: A `[..., M, K]` and B
  `[..., K, N]` with the same leading dimensions, or a 2-D B for all of them.
  A Transpose producing A or B, or taking the result, that keeps the last
  axis last is folded into the kernel's indexing (`a_perm`, `b_perm`,
  `y_perm`): attention's head split and merge cost no copy.
- Then, over the kernel's result (seen through the reshape back to the
  node's shape): an Add of a constant vector of N elements becomes the bias
  added to each sum (`D`, unless the kernel has one), an Add of a tensor of
  the result's shape the residual `R`, a Relu or a Clip with constant bounds
  the activation; each kept in the plain lowering's order of operations.

Products of vectors (1-D A or B), broadcast leading dimensions, empty
tensors and shapes known only at run time stay with the plain lowering.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, StringAttr, TensorType, f32, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects import kernel, onnx
from onnxc.ir_names import ONNX_NODE_NAME
from onnxc.lowering.select_kernels import building_blocks
from onnxc.lowering.select_kernels.building_blocks import (
    Made,
    constant_of,
    constant_op,
    static_float,
)
from onnxc.lowering.select_kernels.epilogues import (
    absorb,
    addend,
    bring_down,
    fuse_activation,
    only_user,
)
from onnxc.targets import Kernels


def select_products(block: Block, kernels: Kernels, made: Made) -> None:
    """Every MatMul and Gemm of `block` that a `kernel.matmul` computes
    becomes one, with what follows it fused. Not for scalar register blocks
    (`unrolled`, Cortex-M4): the matrix kernel's lane loop stays rolled, and
    its accumulators would live on the stack (not measured there yet)."""
    if kernels.unrolled:
        return
    for product in [o for o in block.ops if isinstance(o, onnx.MatMulOp | onnx.GemmOp)]:
        _select(product, kernels, made)
    for matmul in [o for o in block.ops if isinstance(o, kernel.MatmulOp)]:
        while _fuse_user(matmul, made):
            pass


def _select(product: onnx.MatMulOp | onnx.GemmOp, kernels: Kernels, made: Made) -> None:
    a_type, y_type = static_float(product.A), static_float(product.Y)
    b_type = static_float(product.B)
    if a_type is None or y_type is None or b_type is None:
        return
    a_shape, b_shape = a_type.get_shape(), b_type.get_shape()
    if len(a_shape) < 2 or len(b_shape) < 2 or a_shape[-1] != _depth(product, b_shape):
        return
    if 0 in a_shape or 0 in b_shape:
        return  # (nothing to block)
    weights = constant_of(product.B)
    point = InsertPoint.before(product)
    columns = y_type.get_shape()[-1]
    bias = building_blocks.no_value(point)
    if isinstance(product, onnx.GemmOp):
        if weights is None or not _plain_gemm(product):
            return
        weights = weights.T if product.attr("transB") else weights
        if not isinstance(product.C.owner, onnx.NoValueOp):
            bias = _vector(product.C, columns, made, point)
            if bias is None:
                return
    label = onnx.node_name(product) or "matmul"
    packed = weights is not None and weights.ndim == 2
    result, a_perm, b_perm, y_perm = product.Y, [], [], []
    if weights is not None and packed:  # A's rows in one block sequence: [1, M', K]
        a = _as(product.A, [1, math.prod(a_shape[:-1]), a_shape[-1]], point)
        b = _packed(product.B, weights, _columns(kernels), made, point)
        result_type = TensorType(f32, [1, math.prod(a_shape[:-1]), columns])
    elif list(b_shape[:-2]) in ([], list(a_shape[:-2])):
        (a, a_perm), (b, b_perm) = _untransposed(product.A), _untransposed(product.B)
        user = only_user(product.Y)
        if isinstance(user, onnx.TransposeOp) and _keeps_rows(user):
            result, y_perm = user.transposed, list(user.attr("perm"))
        result_type = result.type
    else:
        return
    new = kernel.MatmulOp.create(
        operands=[a, b, bias, building_blocks.no_value(point)],
        result_types=[result_type],
        properties={
            "packed": IntegerAttr(int(packed), i64),
            "lanes": IntegerAttr(_columns(kernels), i64),
            "rows": IntegerAttr(kernels.pixels, i64),
            "bias_first": IntegerAttr(int(isinstance(product, onnx.GemmOp)), i64),
            "fma": IntegerAttr(int(kernels.fma), i64),
            **({"parallel": IntegerAttr(1, i64)} if kernels.parallel else {}),
            **{
                name: building_blocks.ints(perm)
                for name, perm in (("a_perm", a_perm), ("b_perm", b_perm), ("y_perm", y_perm))
                if perm
            },
        },
        attributes={ONNX_NODE_NAME: StringAttr(label)},
    )
    Rewriter.insert_op(new, point)
    new.Y.name_hint = result.name_hint
    result.replace_all_uses_with(_as(new.Y, _shape(result), point))
    folded = [result.owner, product, product.A.owner, product.B.owner]
    for dead in dict.fromkeys(o for o in folded if isinstance(o, Operation)):
        if isinstance(dead, onnx.TransposeOp | onnx.MatMulOp | onnx.GemmOp):
            if all(not r.uses for r in dead.results):
                Rewriter.erase_op(dead)


def _keeps_rows(transpose: onnx.TransposeOp) -> bool:
    """Whether a Transpose keeps its last axis last (so that rows stay
    contiguous and a kernel reads or writes them through the permutation)."""
    perm = transpose.attr("perm")
    return perm is not None and len(perm) >= 2 and perm[-1] == len(perm) - 1


def _untransposed(value: SSAValue) -> tuple[SSAValue, list[int]]:
    """`value`, or the input of the Transpose it is and that Transpose's
    permutation when the permutation keeps the last axis."""
    owner = value.owner
    if isinstance(owner, onnx.TransposeOp) and _keeps_rows(owner):
        return owner.data, list(owner.attr("perm"))
    return value, []


def _columns(kernels: Kernels) -> int:
    """The columns of a register block: two vectors of lanes per row where
    the target has 32 vector registers (8 pixels per convolution block), so
    that 16 independent accumulators hide the multiply-add latency (about
    20% faster than one vector on the encoder layer's products), else one."""
    return kernels.lanes * (2 if kernels.pixels >= 8 else 1)


def _depth(product: onnx.MatMulOp | onnx.GemmOp, b_shape: tuple[int, ...]) -> int:
    """K as B has it."""
    transposed = isinstance(product, onnx.GemmOp) and product.attr("transB")
    return b_shape[-1] if transposed else b_shape[-2]


def _plain_gemm(gemm: onnx.GemmOp) -> bool:
    """A Gemm that is `A B + C` with C a row vector (or none)."""
    if gemm.attr("transA") or gemm.attr("alpha") != 1.0:
        return False
    return isinstance(gemm.C.owner, onnx.NoValueOp) or gemm.attr("beta") == 1.0


def _shape(value: SSAValue) -> list[int]:
    value_type = value.type
    assert isinstance(value_type, TensorType)
    return list(value_type.get_shape())


def _as(value: SSAValue, shape: list[int], point: InsertPoint) -> SSAValue:
    """`value` reshaped to `shape`, when it has another shape."""
    if _shape(value) == shape:
        return value
    return building_blocks.reshaped(value, shape, point)


def _packed(
    value: SSAValue, weights: np.ndarray, lanes: int, made: Made, point: InsertPoint
) -> SSAValue:
    """B [K, N] as [ceil(N/b), K, b], the last block zero-padded (made once)."""
    if ("matmul b", value, lanes) not in made:
        depth, columns = weights.shape
        blocks = -(-columns // lanes)
        padded = np.zeros((depth, blocks * lanes), np.float32)
        padded[:, :columns] = weights
        packed = np.ascontiguousarray(padded.reshape(depth, blocks, lanes).transpose(1, 0, 2))
        hint = f"{value.name_hint or 'b'}_packed"
        made["matmul b", value, lanes] = constant_op(packed, hint, point)
    return made["matmul b", value, lanes]


def _vector(value: SSAValue, columns: int, made: Made, point: InsertPoint) -> SSAValue | None:
    """A constant broadcast along the last axis only ([N], [1, N], ...) as
    [N]; None for anything else."""
    array = constant_of(value)
    if array is None or array.size != columns or (array.ndim and array.shape[-1] != columns):
        return None
    if ("bias", value) not in made:
        hint = f"{value.name_hint or 'bias'}_row"
        made["bias", value] = constant_op(array.astype(np.float32).reshape(-1), hint, point)
    return made["bias", value]


def _fuse_user(matmul: kernel.MatmulOp, made: Made) -> bool:
    """Fuse the only user of `matmul`'s result (seen through its reshape)."""
    view: Operation = matmul
    user = only_user(matmul.Y)
    if isinstance(user, onnx.ReshapeOp):
        view, user = user, only_user(user.reshaped)
    result = view.results[0]
    if user is None or matmul.attr("activation") or len(user.results) != 1:
        return False
    if user.results[0].type != result.type:
        return False
    if not fuse_activation(matmul, user):
        other = addend(user, result)
        if other is None or not isinstance(matmul.R.owner, onnx.NoValueOp):
            return False
        shape = _shape(matmul.Y)
        bias = _vector(other, shape[-1], made, InsertPoint.before(matmul))
        if isinstance(matmul.D.owner, onnx.NoValueOp) and bias is not None:
            matmul.operands[2] = bias
        elif other.type == result.type:
            bring_down([matmul] if view is matmul else [matmul, view], other, user)
            matmul.operands[3] = _as(other, shape, InsertPoint.before(matmul))
        else:
            return False
    absorb(matmul, user, result)
    return True


__all__ = ["select_products"]
