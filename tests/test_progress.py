"""Progress on stderr: `--verbose` names every stage with its seconds and a
total, `--quiet` and a stderr that is not a terminal print nothing, and the
library prints nothing unless given a `Progress`."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

import onnxc
from onnxc.lowering import STAGE_NAMES
from onnxc.progress import Progress
from onnxc.tools.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = str(ROOT / "examples" / "digits_cnn.onnx")
TIMED = r"\s+\d+\.\d\ds"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _stage_lines(err: str) -> dict[str, str]:
    """Each `  NAME  SECONDSs  [NOTE]` line of `err`, by name."""
    found = re.findall(r"^  (\S.*?)" + TIMED + r"(?:  (.*))?$", err, re.MULTILINE)
    return {name.strip(): note for name, note in found}


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("ONNXC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ONNXC_NO_CACHE", raising=False)
    return tmp_path


def test_verbose_compile_names_every_stage(fresh_cache, capsys):
    assert main(["compile", EXAMPLE, "-o", str(fresh_cache / "c"), "--verbose"]) == 0
    stages = _stage_lines(capsys.readouterr().err)
    expected = ["load", "import", *(f"lower: {s}" for s in STAGE_NAMES), "print C", "total"]
    assert [s for s in stages if s in expected] == expected
    assert stages["import"] == "7 nodes"


def test_verbose_compile_says_when_cached(fresh_cache, capsys):
    out = str(fresh_cache / "c")
    assert main(["compile", EXAMPLE, "-o", out, "-q"]) == 0
    assert main(["compile", EXAMPLE, "-o", out, "-v"]) == 0
    stages = _stage_lines(capsys.readouterr().err)
    assert stages["compilation cache"].startswith("hit")
    assert "lower: loops" not in stages
    assert "total" in stages


def test_verbose_run_reports_the_build_and_run(capsys):
    assert main(["run", EXAMPLE, "--random", "--verbose"]) == 0
    stages = _stage_lines(capsys.readouterr().err)
    assert {"C build", "run", "total"} <= set(stages)


def test_verbose_check(capsys):
    assert main(["check", EXAMPLE, "-v"]) == 0
    stages = _stage_lines(capsys.readouterr().err)
    assert {"load", "check operators", "total"} <= set(stages)


@pytest.mark.parametrize("command", [["compile", "--emit", "c"], ["run", "--random"], ["check"]])
@pytest.mark.parametrize("flag", [[], ["--quiet"]])
def test_quiet_and_not_a_terminal_print_nothing_on_stderr(command, flag, capsys):
    assert main([command[0], EXAMPLE, *command[1:], *flag]) == 0
    captured = capsys.readouterr()
    assert captured.out
    assert captured.err == ""


def test_quiet_with_verbose_is_refused(capsys):
    with pytest.raises(SystemExit):
        main(["check", EXAMPLE, "--quiet", "--verbose"])


def test_library_prints_nothing_by_default(capsys):
    model = onnxc.compile(EXAMPLE, cache=False)
    assert model.output_names
    assert capsys.readouterr() == ("", "")


def test_library_reports_to_a_given_progress():
    stream = io.StringIO()
    onnxc.compile(EXAMPLE, cache=False, progress=Progress(stream))
    stages = _stage_lines(stream.getvalue())
    assert {"import", "lower: loops", "print C", "C build"} <= set(stages)
    assert "\r" not in stream.getvalue()


def test_terminal_rewrites_a_bar_in_place():
    stream = _Terminal()
    progress = Progress(stream)
    assert progress.live
    progress.count("import", 1, 4)
    progress.count("import", 4, 4)
    progress.step("import")
    text = stream.getvalue()
    assert text.count("\r  import") == 2
    assert "1/4" in text and "4/4" in text
    assert text.endswith("\n") and "\r\x1b[K  import" in text


def test_plain_stream_gets_no_bar():
    stream = io.StringIO()
    progress = Progress(stream)
    progress.count("import", 1, 4)
    assert stream.getvalue() == ""


def test_a_terminal_sees_bars_for_the_import_and_the_lowering_of_each_node():
    stream = _Terminal()
    onnxc.compile(EXAMPLE, cache=False, progress=Progress(stream))
    text = stream.getvalue()
    assert "\r  import" in text and "7/7" in text
    bars = re.findall(r"\r  lower: linalg\s+\[[#.]+\] (\d+)/(\d+)", text)
    assert bars and bars[-1][0] == bars[-1][1]  # every node of the onnx stage lowered
    assert [int(done) for done, _ in bars] == list(range(1, len(bars) + 1))
