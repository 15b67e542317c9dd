"""Speed of the string operators against onnxruntime, side by side.

    python benchmarks/string_speed.py [--rounds 5] [--strings 10000]

Each model is one operator on a string input of `strings` random words (what
`onnx run --random` draws): RegexFullMatch (an e-mail pattern),
LabelEncoder (1000 string keys), StringNormalizer (upper case, two stop
words) and StringConcat. Timed by `onnxc.tools.bench` (what `onnxc bench` runs:
one thread each, alternating rounds, medians), so the times include
converting the strings between numpy and C, which dominates for onnxc.
Prints each model's milliseconds and ratio (onnxruntime time / onnxc time:
above 1 means onnxc is faster).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import onnx  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

from onnxc.options import CompileOptions  # noqa: E402
from onnxc.tools.bench import bench, format_result  # noqa: E402

KEYS = [f"w{k}" for k in range(1000)]
NODES = {
    "regex_full_match": (
        helper.make_node(
            "RegexFullMatch", ["x"], ["y"], pattern=r"[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-z]{2,}"
        ),
        TensorProto.BOOL,
    ),
    "label_encoder": (
        helper.make_node(
            "LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml", keys_strings=KEYS,
            values_int64s=list(range(len(KEYS))),
        ),
        TensorProto.INT64,
    ),
    "string_normalizer": (
        # onnxruntime's default locale, en_US.UTF-8, is not on every machine
        helper.make_node(
            "StringNormalizer", ["x"], ["y"], case_change_action="UPPER",
            stopwords=["the", "a"], locale="C.UTF-8",
        ),
        TensorProto.STRING,
    ),
    "string_concat": (helper.make_node("StringConcat", ["x", "x"], ["y"]), TensorProto.STRING),
}  # fmt: skip


def _model(node: onnx.NodeProto, output: int, strings: int) -> onnx.ModelProto:
    shape = [None] if node.op_type == "StringNormalizer" else [strings]
    graph = helper.make_graph(
        [node],
        node.op_type,
        [helper.make_tensor_value_info("x", TensorProto.STRING, [strings])],
        [helper.make_tensor_value_info("y", output, shape)],
    )
    opsets = [helper.make_opsetid("", 20), helper.make_opsetid("ai.onnx.ml", 4)]
    return helper.make_model(graph, opset_imports=opsets)


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Speed of the string operators against onnxruntime."
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--strings", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for name, (node, output) in NODES.items():
            path = Path(folder) / f"{name}.onnx"
            onnx.save(_model(node, output, args.strings), path)
            result = bench(path, CompileOptions.make(), rounds=args.rounds)
            print(format_result(name, result), flush=True)


if __name__ == "__main__":
    main()
