"""How many ONNX backend suite cases of each of issue 9's categories pass:

    python -m tests.e2e.backend_categories

A case counts in a category when its model (subgraphs included) has an
operator or a value type of it: control flow (If, Loop, Scan), sequences
(the sequence operators or a sequence-typed value), optionals (the optional
operators or an optional-typed value), strings (the string operators or a
string tensor), ai.onnx.ml (a node of that domain). A case passes unless
`backend_failures.txt` lists it. The node cases come from onnx's test case
generators, the model cases from the suite's data folders.
"""

from __future__ import annotations

import glob
import os
import warnings
from collections.abc import Iterator

import onnx
import onnx.backend.test

from onnxc.frontend.sequences.operators import SEQUENCE_OPS
from tests.e2e.test_backend_suite import expected_failures

OPTIONAL_OPS = {op for op in SEQUENCE_OPS if op.startswith("Optional")}
SEQUENCE_ONLY_OPS = SEQUENCE_OPS - OPTIONAL_OPS
STRING_OPS = {"StringNormalizer", "StringConcat", "StringSplit", "RegexFullMatch"}


def _nodes(graph: onnx.GraphProto) -> Iterator[onnx.NodeProto]:
    for node in graph.node:
        yield node
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                yield from _nodes(attribute.g)
            for subgraph in attribute.graphs:
                yield from _nodes(subgraph)


def _types(graph: onnx.GraphProto) -> list[str]:
    return [str(v.type) for v in [*graph.input, *graph.output, *graph.value_info]]


def categories(model: onnx.ModelProto) -> set[str]:
    """The categories `model` counts in."""
    nodes = list(_nodes(model.graph))
    ops = {n.op_type for n in nodes}
    types = _types(model.graph)
    found = {
        "control flow": bool(ops & {"If", "Loop", "Scan"}),
        "sequences": bool(ops & SEQUENCE_ONLY_OPS) or any("sequence_type" in t for t in types),
        "optionals": bool(ops & OPTIONAL_OPS) or any("optional_type" in t for t in types),
        "strings": bool(ops & STRING_OPS) or any("elem_type: 8\n" in t for t in types),
        "ai.onnx.ml": any(n.domain == "ai.onnx.ml" for n in nodes),
    }
    return {name for name, member in found.items() if member}


def _models() -> Iterator[tuple[str, onnx.ModelProto]]:
    import onnx.backend.test.case.model as model_cases
    import onnx.backend.test.case.node as node_cases

    seen: set[str] = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = [*node_cases.collect_testcases(None), *model_cases.collect_testcases()]
    for case in cases:
        if case.model is not None and case.name not in seen:
            seen.add(case.name)
            yield case.name, case.model
    root = os.path.join(os.path.dirname(onnx.backend.test.__file__), "data")
    for folder in sorted(glob.glob(os.path.join(root, "*", "test_*"))):
        name = os.path.basename(folder)
        path = os.path.join(folder, "model.onnx")
        if name not in seen and os.path.exists(path):
            seen.add(name)
            yield name, onnx.load(path, load_external_data=False)


def main() -> None:
    failing = {name.removesuffix("_cpu") for name in expected_failures()}
    counts = {
        name: [0, 0] for name in ("control flow", "sequences", "optionals", "strings", "ai.onnx.ml")
    }
    for name, model in _models():
        for category in categories(model):
            counts[category][1] += 1
            counts[category][0] += name not in failing
    for category, (passing, total) in counts.items():
        print(f"{category}: {passing} of {total}")


if __name__ == "__main__":
    main()
