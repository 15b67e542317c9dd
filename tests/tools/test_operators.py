"""The operator table is generated from the dialect and the lowerings, and
README's copy of it is current."""

from __future__ import annotations

from pathlib import Path

from onnxc.lowering.convert_onnx_to_linalg import lowerings
from onnxc.tools import operators

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_table_is_current() -> None:
    assert operators.main(["--check", str(README)]) == 0, (
        "README.md's operator table is stale: python -m onnxc.tools.operators --write README.md"
    )


def test_every_operator_is_listed_once() -> None:
    listed = [op for ops in operators.supported().values() for op in ops]
    ml = [op for ops in operators.supported("ai.onnx.ml").values() for op in ops]
    outside, others = operators.missing()
    resolved = operators.supported()[operators.RESOLVED[""]]
    resolved += operators.supported("ai.onnx.ml")[operators.RESOLVED["ai.onnx.ml"]]
    assert sorted(listed + ml) == sorted([*lowerings(), *resolved])
    assert {"SequenceAt", "ZipMap"} <= set(resolved)
    assert {"TreeEnsembleClassifier", "LinearClassifier", "SVMClassifier"} <= set(ml)
    assert not set(listed) & set(outside + others)
    assert outside == [] and others == []  # every default-domain operator compiles
    assert {"If", "Loop", "Scan", "TfIdfVectorizer", "StringNormalizer"} <= set(listed)
    assert "Conv" in listed and "Conv" not in others


def test_a_stale_readme_is_reported(tmp_path: Path) -> None:
    stale = tmp_path / "README.md"
    stale.write_text(f"intro\n{operators.BEGIN}\nold table\n{operators.END}\n")
    assert operators.main(["--check", str(stale)]) == 1
    assert operators.main(["--write", str(stale)]) == 0
    assert operators.main(["--check", str(stale)]) == 0
    assert stale.read_text().startswith("intro\n")
