"""The size report as one self-contained HTML page (`onnxc compile --report-html`).

The page has no scripts, styles from elsewhere or fonts to fetch: it is the
report's figures drawn with inline SVG and HTML, and it is well-formed XML
(every element closed, every text escaped), so tests can parse it.

- The arena: one rectangle per planned buffer, x the steps (ONNX nodes, in
  the order the code runs them) during which it is live, y its bytes in the
  arena from offset 0 at the top. Hovering shows the buffer's node, type,
  shape, bytes, offset and steps (an SVG `<title>`). Each rectangle carries
  its figures as `data-` attributes. Buffers placed at run time (their size
  depends on data) have no offset to draw; a table lists them.
- The layers: per ONNX node (those of If, Loop and Scan bodies under the
  node holding them), bars of its multiply-accumulates and output bytes
  beside the text report's layer table, node names whole.
- The memory plan and flash figures of the text report.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from onnxc.tools.arena_map import ArenaBuffer
from onnxc.tools.report import (
    LAYER_HEADER,
    LAYER_NUMERIC,
    Report,
    flash_lines,
    layer_cells,
    plan_lines,
)

WIDTH = 960
"""Pixels across the arena's steps."""
HEIGHT = 420
"""Pixels down the arena's bytes."""
MARGIN = 64
"""Pixels left of the arena for the byte axis, and below it for the step axis."""

_STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { padding: 2px 8px; border-bottom: 1px solid #ddd; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.bar { display: inline-block; height: 0.8em; background: #4a7bd0; }
.bar.bytes { background: #d08a4a; }
rect.buffer { stroke: #fff; stroke-width: 0.5; }
rect.buffer:hover { stroke: #000; stroke-width: 1.5; }
pre { background: #f6f6f6; padding: 0.8em; font-size: 0.85em; }
"""


def _operator(node: str) -> str:
    return node.split(" ")[0]


def _colors(report: Report) -> dict[str, str]:
    """A color per operator type of the arena's buffers, hues spread evenly."""
    operators = sorted({_operator(b.node) for b in report.arena.buffers})
    return {
        op: f"hsl({360 * k // max(len(operators), 1)}, 55%, 62%)" for k, op in enumerate(operators)
    }


def _buffer_title(b: ArenaBuffer, steps: Sequence[str]) -> str:
    shape = "x".join(map(str, b.shape)) or "scalar"
    span = f"step {b.first + 1}" if b.first == b.last else f"steps {b.first + 1}-{b.last + 1}"
    return (
        f"{b.node or '(no node)'}: {b.element_type} {shape}, {b.size:,} bytes at offset "
        f"{b.offset:,}, live {span} ({steps[b.first]} .. {steps[b.last]})"
    )


def arena_svg(report: Report) -> str:
    """The arena picture: an SVG of one rectangle per buffer with an offset."""
    arena = report.arena
    steps = arena.steps
    placed = [b for b in arena.buffers if b.offset is not None]
    colors = _colors(report)
    total = max([report.workspace_size, *((b.offset or 0) + b.size for b in placed), 1])
    column = WIDTH / max(len(steps), 1)
    scale = HEIGHT / total
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH + MARGIN + 8}" '
        f'height="{HEIGHT + MARGIN + 8}" role="img" aria-label="arena by step">',
        f'<rect x="{MARGIN}" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#f4f4f4"/>',
    ]
    for b in placed:
        assert b.offset is not None
        parts.append(
            f'<rect class="buffer" x="{MARGIN + b.first * column:.2f}" '
            f'y="{b.offset * scale:.2f}" width="{(b.last - b.first + 1) * column:.2f}" '
            f'height="{max(b.size * scale, 0.5):.2f}" fill="{colors[_operator(b.node)]}" '
            f'data-offset="{b.offset}" data-size="{b.size}" data-first="{b.first}" '
            f'data-last="{b.last}" data-node="{escape(b.node)}">'
            f"<title>{escape(_buffer_title(b, steps))}</title></rect>"
        )
    for fraction in (0, 0.25, 0.5, 0.75, 1):
        y = min(max(HEIGHT * fraction + 4, 10), HEIGHT)
        parts.append(
            f'<text x="{MARGIN - 4}" y="{y:.1f}" font-size="10" text-anchor="end">'
            f"{int(total * fraction):,}</text>"
        )
    every = max(1, -(-len(steps) // 40))
    for k in range(0, len(steps), every):
        x = MARGIN + (k + 0.5) * column
        label = str(k + 1) if every > 1 or len(steps) > 24 else f"{k + 1} {_operator(steps[k])}"
        parts.append(
            f'<text x="{x:.1f}" y="{HEIGHT + 10}" font-size="10" '
            f'transform="rotate(40 {x:.1f} {HEIGHT + 10})">{escape(label)}</text>'
        )
    parts.append(
        f'<text x="{MARGIN + WIDTH / 2:.0f}" y="{HEIGHT + MARGIN}" font-size="11" '
        'text-anchor="middle">step (ONNX node, in run order); bytes of the arena downwards</text>'
    )
    parts.append("</svg>")
    return "\n".join(parts)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric: set[int]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = [
        "<tr>"
        + "".join(
            f'<td class="n">{cell}</td>' if i in numeric else f"<td>{cell}</td>"
            for i, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    ]
    return "\n".join([f"<table><tr>{head}</tr>", *body, "</table>"])


def _bar(value: int, largest: int, css: str) -> str:
    width = 160 * value / largest if largest else 0
    return f'<span class="{css}" style="width: {width:.1f}px"></span>'


def layers_table(report: Report) -> str:
    """The layer table with a bar of MACs and one of output bytes per node."""
    cells = layer_cells(report)
    most_macs = max((layer.macs for layer in report.layers), default=0)
    most_bytes = max((layer.output_bytes or 0 for layer in report.layers), default=0)
    rows: list[list[str]] = []
    for k, row in enumerate(cells):
        escaped = [escape(c) for c in row]
        if k < len(report.layers):
            layer = report.layers[k]
            bars = [
                _bar(layer.macs, most_macs, "bar"),
                _bar(layer.output_bytes or 0, most_bytes, "bar bytes"),
            ]
        else:
            bars = ["", ""]
        rows.append([*escaped, *bars])
    header = [*LAYER_HEADER, "MACs, relative", "output B, relative"]
    return _table(header, rows, set(LAYER_NUMERIC))


def _run_time_buffers(report: Report) -> str:
    steps = report.arena.steps
    rows = [
        [
            escape(b.node),
            escape(b.element_type),
            escape("x".join(map(str, b.shape))),
            f"{b.first + 1} .. {b.last + 1} ({escape(steps[b.first])} .. {escape(steps[b.last])})",
        ]
        for b in report.arena.buffers
        if b.offset is None
    ]
    if not rows:
        return ""
    return (
        "<p>Not drawn: buffers whose size is known only at run time "
        "(the planner places them within their bound):</p>\n"
        + _table(["node", "dtype", "shape", "steps"], rows, set())
    )


def _legend(report: Report) -> str:
    items = " ".join(
        f'<span style="white-space: nowrap"><span class="bar" style="width: 1em; '
        f'background: {color}"></span> {escape(op)}</span>'
        for op, color in _colors(report).items()
    )
    return f"<p>{items}</p>" if items else ""


def _steps_list(report: Report) -> str:
    items = "".join(f"<li>{escape(step)}</li>" for step in report.arena.steps)
    return f"<details><summary>steps</summary><ol>{items}</ol></details>"


def format_html(report: Report) -> str:
    """The whole page."""
    title = f"onnxc memory report: {report.name} (target {report.target})"
    sections = [
        "<!DOCTYPE html>",
        '<html xmlns="http://www.w3.org/1999/xhtml" lang="en">',
        "<head>",
        '<meta charset="utf-8"/>',
        f"<title>{escape(title)}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        f"<h1>{escape(title)}</h1>",
        "<h2>The arena</h2>",
        f"<p>{report.workspace_size:,} bytes ({escape(report.name)}_WORKSPACE_SIZE), "
        f"{len(report.arena.buffers)} buffers over {len(report.arena.steps)} steps. "
        "Each rectangle is a buffer: across, the steps it is live; down, its bytes. "
        "Hover over one for its tensor.</p>",
        arena_svg(report),
        _legend(report),
        _run_time_buffers(report),
        _steps_list(report),
        "<h2>Layers</h2>",
        layers_table(report),
        "<h2>Memory plan (RAM)</h2>",
        f"<pre>{escape(chr(10).join(plan_lines(report)))}</pre>",
        "<h2>Flash</h2>",
        f"<pre>{escape(chr(10).join(flash_lines(report)))}</pre>",
        "</body>",
        "</html>",
    ]
    return "\n".join(s for s in sections if s) + "\n"
