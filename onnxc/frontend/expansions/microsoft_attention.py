"""com.microsoft Attention and MultiHeadAttention as the default-domain
Attention (semantics: onnxruntime's contrib operator documentation and its
CPU kernels, onnxruntime 1.32).

Both compute softmax(scale * Q K^T + attention_bias + mask) V per head, Q,
K and V (batch, sequence, heads * head size), the caches (batch, heads,
length, head size) with the new keys and values after the past ones.
Without a cache this is the default Attention of 3-D inputs (q_num_heads
and kv_num_heads num_heads); with one, the heads are split and the caches
concatenated here, the default Attention then reading them as its keys
and values (onnx's inference gives its own present outputs no shape when
the lengths are free).

onnxruntime's masks are additive and finite, and so is attn_mask here: a
key the mask hides gets mask_filter_value (-10000 by default), and
`unidirectional` adds it again to the keys after a query's position (past
+ s), as onnxruntime adds the two masks; a row whose keys are all hidden
still averages them, where -inf would give zeros. The mask input's rank
decides its meaning (`rank_branches.py` chooses at compile time): 1-D, the
keys each batch entry sees, (batch) exclusive ends (right padding) and for
Attention also (2 * batch) ends then inclusive starts (left padding); 2-D
(batch, total keys) and 3-D (batch, queries, total keys) hold 1 where a key
is seen, 0 where it is hidden. Other lengths of a 1-D mask (onnxruntime's
GPU-only (3 * batch + 2) form) stop the model at run time; a 4-D mask,
which onnxruntime's CPU kernel refuses, fails to apply.

Refused with a one-line error: Attention's do_rotary (the CPU kernel
refuses it too), past_present_share_buffer and past_sequence_length;
MultiHeadAttention's packed QKV and KV (refused by the CPU kernel too), its
beam-search inputs past_sequence_length and cache_indirection, and its qk
output. MultiHeadAttention takes key and value 3-D (projected here: the
bias's key and value parts are added) or 4-D (batch, heads, length, head
size), used as they are (onnxruntime ignores the bias's key and value
parts then).
"""

from __future__ import annotations

import numpy as np

from onnxc.frontend.expansions.expander import Expander, Expansions
from onnxc.frontend.expansions.rank_branches import Branch, by_rank
from onnxc.frontend.expansions.sizes import dim, per_batch, positions, scalar

MASK_FILTER_VALUE = -10000.0
"""What onnxruntime adds to the score of a masked key, by default."""


def keys_seen(x: Expander, mask: str, batch: str, queries: str, keys: str, starts: bool) -> str:
    """The bool (batch, 1, 1 or queries, keys) that is true where a query
    sees a key, from onnxruntime's int32 mask of any rank (module
    docstring); a 1-D mask holds ends, and starts after them when
    `starts` allows (Attention's (2 * batch) form)."""

    def bounds(inner: Expander) -> list[str]:
        at = positions(inner, keys)
        table = _bounds_table(inner, mask, batch, 2 if starts else 1)
        end = inner.op("Gather", table, inner.constant(0, "ends"), axis=0)
        seen = inner.op("Less", at, per_batch(inner, end))
        if starts:
            zeros = inner.op("Mul", table, inner.constant(np.array(0, np.int32), "zero"))
            padded = inner.op("Concat", table, zeros, axis=0)
            start = inner.op("Gather", padded, inner.constant(1, "starts"), axis=0)
            seen = inner.op("And", seen, inner.op("GreaterOrEqual", at, per_batch(inner, start)))
        return [seen]

    def raw(rows: str | None) -> Branch:
        def read(inner: Expander) -> list[str]:
            seen_rows = rows if rows is not None else inner.constant([1], "one_row")
            ones = inner.constant([1], "heads")
            shape = inner.op("Concat", batch, ones, seen_rows, keys, axis=0)
            shaped = inner.op("Reshape", mask, shape)
            return [inner.op("Greater", shaped, inner.constant(np.array(0, np.int32), "zero"))]

        return read

    seen = x.fresh("seen")
    by_rank(x, mask, {1: bounds, 2: raw(None), 3: raw(queries)}, [seen])
    return seen


def _bounds_table(x: Expander, mask: str, batch: str, most: int) -> str:
    """A 1-D mask read as (rows, batch), rows 1 or at most `most`: its
    ends, then its starts. A length other than batch (or 2 * batch when
    `most` is 2) makes the Reshape fail at run time."""
    rows = x.op("Div", x.op("Size", mask), scalar(x, batch))
    rows = x.op("Clip", rows, x.constant(1, "least"), x.constant(most, "most"))
    shape = x.op("Concat", x.op("Unsqueeze", rows, x.constant([0], "axis")), batch, axis=0)
    return x.op("Reshape", mask, shape)


def attention_mask(
    x: Expander,
    mask: str | None,
    bias: str | None,
    like: str,
    sizes: tuple[str, str, str],
    starts: bool,
) -> str | None:
    """The float attn_mask, None when there is nothing to add: the keys
    `mask` hides at mask_filter_value, the later keys at mask_filter_value
    again when unidirectional (onnxruntime adds the two), and `bias`
    (attention_bias); `sizes` are the batch, query and total key counts
    (1-D int64), `like` a value of the element type."""
    filtered = x.float_attribute("mask_filter_value", MASK_FILTER_VALUE)
    zero, hidden = x.like(0.0, like, "seen"), x.like(filtered, like, "hidden")
    terms = [] if bias is None else [bias]
    if mask is not None:
        terms.append(x.op("Where", keys_seen(x, mask, *sizes, starts), zero, hidden))
    if x.int_attribute("unidirectional", 0):
        _, queries, keys = sizes
        rows = x.op("Unsqueeze", positions(x, queries), x.constant([1], "axis"))
        last = x.op("Add", rows, x.op("Sub", keys, queries))  # query s is at past + s
        terms.append(x.op("Where", x.op("LessOrEqual", positions(x, keys), last), zero, hidden))
    if not terms:
        return None
    total = terms[0]
    for term in terms[1:]:
        total = x.op("Add", total, term)
    return total


def refuse_inputs(x: Expander, inputs: dict[int, str]) -> None:
    """Refuse the node when it has any of `inputs` (index: name)."""
    for index, what in inputs.items():
        if x.input(index) is not None:
            raise x.refuse(f"its input {index} ({what}) is not supported")


def thirds(x: Expander, value: str, first: str, second: str) -> list[str]:
    """`value` cut along its last axis into `first` elements, `second`
    elements and the rest (Slices: unlike a Split at computed sizes, onnx's
    inference gives them a rank)."""
    middle = x.op("Add", first, second)
    bounds = [x.constant([0], "start"), first, middle, dim(x, value, -1)]
    axis = x.constant([-1], "last")
    return [x.op("Slice", value, bounds[i], bounds[i + 1], axis) for i in range(3)]


def split_heads(x: Expander, value: str, heads: int) -> str:
    """(batch, length, heads * head size) as (batch, heads, length, head size)."""
    split = x.op("Reshape", value, x.constant([0, 0, heads, -1], "heads"))
    return x.op("Transpose", split, perm=[0, 2, 1, 3])


def merge_heads(x: Expander, value: str, name: str | None = None) -> str:
    """(batch, heads, length, head size) as (batch, length, heads * head size)."""
    merged = x.op("Transpose", value, perm=[0, 2, 1, 3])
    shape = x.constant([0, 0, -1], "merged")
    return x.add("Reshape", [merged, shape], [name] if name else 1)[0]


def _heads(x: Expander) -> int:
    heads = x.int_attribute("num_heads")
    if heads <= 0:
        raise x.refuse(f"num_heads must be positive, not {heads}")
    return heads


def _scale(x: Expander) -> float | None:
    """The default Attention's scale: None for onnxruntime's 0, which is
    1 / sqrt(head size), the default Attention's default."""
    scale = x.float_attribute("scale", 0.0)
    return scale if scale != 0.0 else None


def _attend(
    x: Expander,
    output: str,
    query: str,
    keys: tuple[str, str],
    mask: str | None,
    heads: int,
    cache: tuple[str, str] | None = None,
    presents: tuple[str, str] | None = None,
) -> None:
    """`output` (batch, S, heads * value head size) from the 3-D `query`
    and the new keys and values: 3-D without `cache` and `presents`, else
    (batch, heads, length, head size), appended to `cache` (when given)
    into `presents` (fresh names when None)."""
    scale = _scale(x)
    if cache is None and presents is None:
        attributes = {"q_num_heads": heads, "kv_num_heads": heads, "scale": scale}
        x.add("Attention", [query, *keys, mask], [output], **attributes)
        return
    joined = presents or (x.fresh("present_key"), x.fresh("present_value"))
    for index, new in enumerate(keys):
        x.add("Concat", [*([cache[index]] if cache else []), new], [joined[index]], axis=2)
    attended = x.op("Attention", split_heads(x, query, heads), *joined, mask, scale=scale)
    merge_heads(x, attended, output)


def _attention(x: Expander) -> None:
    """com.microsoft Attention: Q, K, V = split(input @ weights + bias) at
    qkv_hidden_sizes (thirds by default), the past (2, batch, heads, past,
    head size) split into past keys and values and the present stacked
    back the same way."""
    refuse_inputs(x, {6: "past_sequence_length"})
    for flag in ("do_rotary", "past_present_share_buffer"):
        if x.int_attribute(flag, 0):
            raise x.refuse(f"{flag} is not supported")
    heads = _heads(x)
    data, weights = x.needed(0, "input"), x.needed(1, "weights")
    projected = x.op("MatMul", data, weights)
    if (bias := x.input(2)) is not None:
        projected = x.op("Add", projected, bias)
    sizes = x.attribute("qkv_hidden_sizes")
    if isinstance(sizes, list):
        if len(sizes) != 3:
            raise x.refuse("qkv_hidden_sizes must list 3 sizes")
        split = x.constant([int(size) for size in sizes], "qkv_hidden_sizes")
        q, k, v = x.add("Split", [projected, split], 3, axis=-1)
    else:
        q, k, v = x.add("Split", [projected], 3, axis=-1, num_outputs=3)
    cache = None
    batch, queries = dim(x, data, 0), dim(x, data, 1)
    keys = queries
    if (past := x.input(4)) is not None:
        halves = x.add("Split", [past], 2, axis=0, num_outputs=2)
        axis = x.constant([0], "axis")
        cache = (x.op("Squeeze", halves[0], axis), x.op("Squeeze", halves[1], axis))
        keys = x.op("Add", keys, dim(x, past, 3))
    mask = attention_mask(x, x.input(3), x.input(5), q, (batch, queries, keys), starts=True)
    present = x.output(1)
    presents = (x.fresh("present_key"), x.fresh("present_value")) if present else None
    if cache is None and presents is None:
        _attend(x, x.node.output[0], q, (k, v), mask, heads)
        return
    split = (split_heads(x, k, heads), split_heads(x, v, heads))
    _attend(x, x.node.output[0], q, split, mask, heads, cache, presents)
    if present is not None and presents is not None:
        axis = x.constant([0], "axis")
        stacked = [x.op("Unsqueeze", half, axis) for half in presents]
        x.add("Concat", stacked, [present], axis=0)


def _multi_head_attention(x: Expander) -> None:
    """com.microsoft MultiHeadAttention: separate query, key and value,
    the bias's query part added to the query (and its key and value parts
    to a 3-D key and value), past_key and past_value before the keys
    (present_key, present_value)."""
    refuse_inputs(x, {8: "past_sequence_length", 9: "cache_indirection"})
    if x.output(3) is not None:
        raise x.refuse("its output 3 (qk) is not supported")
    heads = _heads(x)
    query = x.needed(0, "query")
    key = x.needed(1, "key; packed QKV is not supported")
    value = x.needed(2, "value; packed KV is not supported")
    past_key, past_value = x.input(6), x.input(7)
    if (past_key is None) != (past_value is None):
        raise x.refuse("past_key and past_value must be given together")
    cache = None if past_key is None or past_value is None else (past_key, past_value)
    key_bias = value_bias = None
    hidden = dim(x, query, 2)
    if (bias := x.input(3)) is not None:
        query_bias, key_bias, value_bias = thirds(x, bias, hidden, hidden)
        query = x.op("Add", query, query_bias)
    batch, queries = dim(x, query, 0), dim(x, query, 1)
    key_shape = x.op("Shape", key)
    length_axis = x.op("Sub", x.op("Size", key_shape), x.constant([2], "two"))
    length = x.op("Gather", key_shape, length_axis, axis=0)  # axis 1 of 3-D, 2 of 4-D
    keys = length if past_key is None else x.op("Add", length, dim(x, past_key, 2))
    mask = attention_mask(x, x.input(4), x.input(5), query, (batch, queries, keys), starts=False)
    wanted = x.output(1) is not None or x.output(2) is not None
    direct = cache is None and not wanted
    scale = _scale(x)

    def projected(inner: Expander) -> list[str]:
        width = dim(inner, value, -1)
        k = _as_3d(inner, key, batch, length, hidden)
        v = _as_3d(inner, value, batch, length, width)
        if key_bias is not None and value_bias is not None:
            k = inner.op("Add", k, inner.op("Reshape", key_bias, hidden))
            v = inner.op("Add", v, inner.op("Reshape", value_bias, width))
        if direct:
            output = inner.fresh("output")
            _attend(inner, output, query, (k, v), mask, heads)
            return [output]
        return [split_heads(inner, k, heads), split_heads(inner, v, heads)]

    def by_heads(inner: Expander) -> list[str]:
        shape = inner.op(
            "Concat",
            batch,
            inner.constant([heads], "heads"),
            length,
            inner.constant([-1], "rest"),
            axis=0,
        )
        # as in _as_3d; the -1 divides (the head size) whatever the rank
        k, v = (inner.op("Reshape", kept, shape) for kept in (key, value))
        if direct:
            split = split_heads(inner, query, heads)
            return [merge_heads(inner, inner.op("Attention", split, k, v, mask, scale=scale))]
        return [k, v]

    if direct:
        by_rank(x, key, {3: projected, 4: by_heads}, [x.node.output[0]])
        return
    presents = (x.output(1) or x.fresh("present_key"), x.output(2) or x.fresh("present_value"))
    split = (x.fresh("key_heads"), x.fresh("value_heads"))
    by_rank(x, key, {3: projected, 4: by_heads}, split)
    _attend(x, x.node.output[0], query, split, mask, heads, cache, presents)


def _as_3d(x: Expander, value: str, batch: str, length: str, width: str) -> str:
    """A 3-D key or value reshaped to the sizes it has, spelled out. onnx
    infers both branches of the If on the key's rank, whatever the rank: so
    that the branch not taken infers without a contradiction (which would
    fail the model, or type the If's result wrongly), each branch reshapes
    the key and value (and their biases) to its rank and the sizes it reads
    first, without a -1: an identity on the rank it takes, and on the
    other one a Reshape whose sizes onnx does not check."""
    return x.op("Reshape", value, x.op("Concat", batch, length, width, axis=0))


EXPANSIONS: Expansions = {"Attention": _attention, "MultiHeadAttention": _multi_head_attention}
