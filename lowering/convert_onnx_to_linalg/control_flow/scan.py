"""`onnx.Scan` -> `scf.for` over the scan axis: each trip copies the slice
of every scan input (at `scan_input_axes`, read backwards for direction 1)
into a buffer the body reads, and writes each scan output's slice (at
`scan_output_axes`, backwards for direction 1); the scheme is the one
`regions.py` describes.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects import onnx
from onnxc.ir_names import COMMENT
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    alloc,
    buffer_behind,
    buffer_of,
    comment_for,
    normalize_axis,
    shape_of,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.control_flow.regions import (
    copy_elements,
    initialised,
    memref_sizes,
    same_sizes,
    sizes_known,
    subgraph_block,
    trip_block,
    with_index,
    write_carried,
    yield_of,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import index


class ScanOpLowering(OnnxLowering[onnx.ScanOp]):
    """`onnx.Scan` -> `scf.for` over the scan axis; see the module docstring."""

    def rewrite(self, op: onnx.ScanOp, rewriter: PatternRewriter) -> None:
        operands = list(op.initial_state_and_scan_inputs)
        inputs = op.attr("num_scan_inputs")
        states = len(operands) - inputs
        outputs = len(op.results) - states
        if inputs < 1 or states < 0 or outputs < 0:
            raise unsupported(op, f"{inputs} scan inputs of {len(operands)} inputs")
        block = subgraph_block(op, op.body, states + inputs, states + outputs, "body")
        in_axes = self._axes(op, "scan_input_axes", operands[states:])
        in_reverse = self._directions(op, "scan_input_directions", inputs)
        out_reverse = self._directions(op, "scan_output_directions", outputs)
        shapes = self.shapes
        scanned = operands[states:]
        trips = shapes.sizes(scanned[0])[in_axes[0]]
        for j, value in enumerate(scanned[1:], start=1):
            length = shapes.sizes(value)[in_axes[j]]
            if isinstance(length, int) and isinstance(trips, int) and length != trips:
                raise unsupported(op, f"scan input {j} has {length} slices, not {trips}")
        buffers = [initialised(self.shapes, rewriter, op, v) for v in operands[:states]]
        slices: list[SSAValue] = []
        for j, value in enumerate(scanned):
            sizes = shapes.sizes(value)
            slices.append(
                alloc(rewriter, value.type, [*sizes[: in_axes[j]], *sizes[in_axes[j] + 1 :]])
            )
        scan_buffers: list[SSAValue] = []
        results = list(op.results[states:])
        out_axes = self._axes(op, "scan_output_axes", [], [len(shape_of(r)) for r in results])
        for k, result in enumerate(results):
            value = yield_of(block).values[states + k]
            slice_sizes = sizes_known(self.shapes, value)
            if slice_sizes is None:
                whole = sizes_known(self.shapes, result)
                if whole is None:
                    raise unsupported(op, f"scan output {k} has a size only the body knows")
                slice_sizes = [*whole[: out_axes[k]], *whole[out_axes[k] + 1 :]]
            axis = out_axes[k]
            sizes = [*slice_sizes[:axis], trips, *slice_sizes[axis:]]
            scan_buffers.append(self.result_buffer(rewriter, result, sizes))
        taken, iv = trip_block(self.shapes, op.body, [*buffers, *slices])
        head = Builder(InsertPoint.at_start(taken))
        last = index(Builder(InsertPoint.before(op)), shapes.sub(trips, 1))
        backwards = head.insert(arith.SubiOp(last, iv)).result
        for j, (value, target) in enumerate(zip(scanned, slices, strict=True)):
            at = backwards if in_reverse[j] else iv
            source = buffer_of(rewriter, value)
            read = with_index(in_axes[j], at)
            copy_elements(head, source, target, shapes.sizes(target), read=read)
        b = Builder(InsertPoint.before(op))
        loop = scf.ForOp(index(b, 0), index(b, trips), index(b, 1), [], taken)
        loop.attributes[COMMENT] = comment_for(op)
        rewriter.insert(loop)
        self.replace(rewriter, op, [*buffers, *scan_buffers])
        rows = [backwards if reverse else iv for reverse in out_reverse]
        self.context.finishers.append(
            lambda: _finish_scan(loop, taken, buffers, scan_buffers, out_axes, rows)
        )

    def _axes(
        self,
        op: onnx.ScanOp,
        name: str,
        values: Sequence[SSAValue],
        ranks: Sequence[int] | None = None,
    ) -> list[int]:
        """Attribute `name` (axes, default 0), normalised against the ranks
        of `values` (or `ranks`)."""
        ranks = [len(shape_of(v)) for v in values] if ranks is None else list(ranks)
        axes = op.attr(name)
        axes = [0] * len(ranks) if axes is None else list(axes)
        if len(axes) != len(ranks):
            raise unsupported(op, f"{name} has {len(axes)} entries, not {len(ranks)}")
        return [normalize_axis(op, axis, rank) for axis, rank in zip(axes, ranks, strict=True)]

    def _directions(self, op: onnx.ScanOp, name: str, count: int) -> list[bool]:
        """Attribute `name` as `count` flags: read (or write) backwards."""
        found = op.attr(name)
        found = [0] * count if found is None else list(found)
        if len(found) != count or any(d not in (0, 1) for d in found):
            raise unsupported(op, f"{name} is {found}")
        return [d == 1 for d in found]


def _finish_scan(
    loop: Operation,
    body: Block,
    buffers: Sequence[SSAValue],
    scan_buffers: Sequence[SSAValue],
    axes: Sequence[int],
    rows: Sequence[SSAValue],
) -> None:
    """Write a trip's outputs: each scan output's slice at its row (before
    the carried values change), then the carried values."""
    end = yield_of(body)
    values = [buffer_behind(v) for v in end.values]
    b = Builder(InsertPoint.before(end))
    outputs = values[len(buffers) :]
    for source, target, axis, row in zip(outputs, scan_buffers, axes, rows, strict=True):
        sizes = memref_sizes(b, source)
        whole = memref_sizes(b, target)
        same_sizes(b, loop, sizes, [*whole[:axis], *whole[axis + 1 :]], "a scan output")
        copy_elements(b, source, target, sizes, write=with_index(axis, row))
    write_carried(b, loop, values[: len(buffers)], buffers)
    Rewriter.replace_op(end, scf.YieldOp())
