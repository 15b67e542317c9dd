"""com.microsoft RotaryEmbedding as the default-domain RotaryEmbedding
(semantics: onnxruntime 1.32's CPU kernel).

The input is (batch, S, hidden) or (batch, heads, S, head size) (its rank,
which an expansion cannot see, chooses: `rank_branches.py`). cos_cache and
sin_cache are (max positions, rotary dimension / 2). position_ids is one
element, the position of the first token (token s is at that + s), or
(batch, S). With num_heads, a 3-D input splits into that many heads and
rotary_embedding_dim (0: the whole head) elements of each head rotate;
without it (rotary_embedding_dim must then be 0) a head is twice as long
as a cos_cache row, and the whole head rotates. interleaved pairs
elements 2k and 2k + 1, else k and k + half, as the default operator does.

onnxruntime's CPU kernel ignores `scale` and `is_packed_batching` (the
results are the same whatever they are), and so does this expansion.
"""

from __future__ import annotations

from onnxc.frontend.expansions.expander import Expander, Expansions
from onnxc.frontend.expansions.rank_branches import by_rank
from onnxc.frontend.expansions.sizes import dim, int64, positions


def _rotary_embedding(x: Expander) -> None:
    """See the module docstring."""
    data = x.needed(0, "input")
    ids, cos, sin = x.needed(1, "position_ids"), x.needed(2, "cos_cache"), x.needed(3, "sin_cache")
    heads = x.int_attribute("num_heads", 0)
    rotated = x.int_attribute("rotary_embedding_dim", 0)
    if rotated > 0 and heads <= 0:
        raise x.refuse("rotary_embedding_dim needs num_heads")
    options = {
        "interleaved": x.int_attribute("interleaved", 0),
        "rotary_embedding_dim": rotated or None,
    }

    def rotate(inner: Expander, value: str, sequence: int, **more: object) -> str:
        """`value` rotated, the positions sized by axis `sequence` of the input."""
        at = _positions(inner, ids, dim(inner, data, 0), dim(inner, data, sequence))
        return inner.op("RotaryEmbedding", value, cos, sin, at, **options, **more)

    def hidden(inner: Expander) -> list[str]:
        if heads > 0:
            return [rotate(inner, data, 1, num_heads=heads)]
        head = inner.op("Mul", dim(inner, cos, 1), inner.constant([2], "pair"))
        shape = inner.op("Concat", inner.constant([0, 0, -1], "heads"), head, axis=0)
        split = inner.op("Transpose", inner.op("Reshape", data, shape), perm=[0, 2, 1, 3])
        turned = inner.op("Transpose", rotate(inner, split, 1), perm=[0, 2, 1, 3])
        return [inner.op("Reshape", turned, inner.constant([0, 0, -1], "merged"))]

    def by_heads(inner: Expander) -> list[str]:
        # an identity on the 4-D input, and 4-D when the branch is inferred for a 3-D one
        four = inner.op("Reshape", data, inner.constant([0, 0, 0, -1], "four_axes"))
        return [rotate(inner, four, 2)]

    by_rank(x, data, {3: hidden, 4: by_heads}, [x.node.output[0]])


def _positions(x: Expander, ids: str, batch: str, sequence: str) -> str:
    """The (batch, S) positions: ids as they are, or (one element) the
    first position plus 0, 1, ..., S - 1."""
    count = x.op("Size", ids)
    offset = int64(x, x.op("Equal", count, x.constant(1, "one")))
    width = x.op("Min", x.op("Unsqueeze", count, x.constant([0], "axis")), sequence)
    table = x.op("Reshape", ids, x.op("Concat", x.constant([-1], "rows"), width, axis=0))
    steps = x.op("Mul", positions(x, sequence), offset)
    return x.op("Expand", x.op("Add", table, steps), x.op("Concat", batch, sequence, axis=0))


EXPANSIONS: Expansions = {"RotaryEmbedding": _rotary_embedding}
