"""The compilation cache (`onnxc/compile_cache.py`, `api.generate_with`), its
size limit (`emit/cache_limit.py`) and `onnxc cache info|clear`. Every test
uses its own `ONNXC_CACHE_DIR`."""

from __future__ import annotations

import importlib.machinery
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxc
from onnxc import api, compile_cache
from onnxc.emit import cache_limit
from onnxc.emit.build import EXTENSION_PREFIX
from onnxc.errors import OnnxcError
from onnxc.options import CompileOptions
from onnxc.tools.cli import main


@pytest.fixture(autouse=True)
def cache_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("ONNXC_CACHE_DIR", str(folder))
    monkeypatch.delenv("ONNXC_NO_CACHE", raising=False)
    return folder


def _model() -> onnx.ModelProto:
    """y = x * scale + b, with `scale` an input that defaults to 2."""
    graph = helper.make_graph(
        [
            helper.make_node("Mul", ["x", "scale"], ["m"], name="mul"),
            helper.make_node("Add", ["m", "b"], ["y"], name="add"),
        ],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3]),
            helper.make_tensor_value_info("scale", TensorProto.FLOAT, []),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
        [
            numpy_helper.from_array(np.array(2.0, np.float32), "scale"),
            numpy_helper.from_array(np.array([1.0, -10.0, 0.5], np.float32), "b"),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


class PipelineCalls:
    """Stands in for the compiler behind the cache, counting its calls."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        self.real = api._generate
        monkeypatch.setattr(api, "_generate", self)

    def __call__(self, *args: Any) -> api.GeneratedC:
        self.count += 1
        return self.real(*args)


def test_second_compile_skips_the_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = PipelineCalls(monkeypatch)
    options = CompileOptions.make(max_dims={"N": 4})
    first = api.generate_with(_model(), options)
    second = api.generate_with(_model(), options)
    assert calls.count == 1
    assert second.files == first.files
    assert second.inputs == first.inputs
    assert second.outputs == first.outputs
    assert second.workspace_size == first.workspace_size
    assert second.dims == first.dims == ["N"]
    assert list(second.input_defaults) == ["scale"]
    np.testing.assert_array_equal(second.input_defaults["scale"], np.float32(2.0))
    assert second.input_defaults["scale"].dtype == np.float32
    assert len(cache_limit.compilation_entries()) == 1


def test_cached_model_runs_like_a_compiled_one(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    fresh = onnxc.compile(_model())(x)
    calls = PipelineCalls(monkeypatch)
    cached = onnxc.compile(_model())
    assert calls.count == 0
    np.testing.assert_array_equal(cached(x)[0], fresh[0])


def test_a_path_and_its_proto_share_an_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "model.onnx"
    onnx.save(_model(), str(path))
    api.generate_with(str(path), CompileOptions())
    calls = PipelineCalls(monkeypatch)
    api.generate_with(onnx.load(str(path)), CompileOptions())
    assert calls.count == 0


def test_options_key_in_canonical_form() -> None:
    proto = _model()
    as_lists = CompileOptions.make(shapes={"x": [2, 3], "scale": []}, dims={"A": 1, "B": 2})
    as_tuples = CompileOptions.make(shapes={"scale": (), "x": (2, 3)}, dims={"B": 2, "A": 1})
    assert compile_cache.entry_key(proto, "m", as_lists) == compile_cache.entry_key(
        proto, "m", as_tuples
    )
    # -O acts on the C build, which has its own cache
    assert compile_cache.entry_key(proto, "m", CompileOptions()) == compile_cache.entry_key(
        proto, "m", CompileOptions(opt_level=0)
    )
    others = [
        compile_cache.entry_key(proto, "m", CompileOptions.make(dims={"N": 2})),
        compile_cache.entry_key(proto, "other_name", CompileOptions()),
        compile_cache.entry_key(proto, "m", CompileOptions(separate_weights=True)),
        compile_cache.entry_key(proto, "m", CompileOptions()),
    ]
    assert len(set(others)) == len(others)


def test_cache_off(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = PipelineCalls(monkeypatch)
    api.generate_with(_model(), CompileOptions(), cache=False)
    monkeypatch.setenv("ONNXC_NO_CACHE", "1")
    api.generate_with(_model(), CompileOptions())
    api.generate_with(_model(), CompileOptions())
    assert calls.count == 3
    assert cache_limit.compilation_entries() == []


def test_stages_asked_for_bypass_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    api.generate_with(_model(), CompileOptions())
    calls = PipelineCalls(monkeypatch)
    stages: list[str] = []
    api.generate_with(_model(), CompileOptions(), on_stage=lambda stage, _: stages.append(stage))
    assert calls.count == 1
    assert stages


def _stored(entry: Path) -> compile_cache.Entry:
    stored = compile_cache.read_entry(entry)
    assert stored is not None
    return stored


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],
        lambda text: "",
        lambda text: '{"name": "m"}',
        lambda text: text.replace('"element": 1,', '"element": 12345,', 1),
    ],
    ids=["truncated", "empty", "missing-fields", "unknown-element"],
)
def test_a_damaged_entry_is_compiled_again_and_overwritten(
    monkeypatch: pytest.MonkeyPatch, damage: Any
) -> None:
    good = api.generate_with(_model(), CompileOptions())
    (entry,) = cache_limit.compilation_entries()
    entry.write_text(damage(entry.read_text()))
    calls = PipelineCalls(monkeypatch)
    again = api.generate_with(_model(), CompileOptions())
    assert calls.count == 1
    assert again.files == good.files
    assert api.GeneratedC.from_entry(_stored(entry)).files == good.files


def test_an_unwritable_cache_is_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("ONNXC_CACHE_DIR", str(blocker / "cache"))
    assert api.generate_with(_model(), CompileOptions()).files


def test_concurrent_compiles_leave_one_valid_entry(tmp_path: Path, cache_in_tmp: Path) -> None:
    path = tmp_path / "model.onnx"
    onnx.save(_model(), str(path))
    script = textwrap.dedent(
        f"""
        import numpy as np, onnxc
        m = onnxc.compile({str(path)!r})
        y, = m(np.ones((2, 3), np.float32))
        assert y.tolist() == [[3.0, -8.0, 2.5]] * 2, y
        """
    )
    workers = [
        subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    for worker in workers:
        _, stderr = worker.communicate(timeout=300)
        assert worker.returncode == 0, stderr
    (entry,) = cache_limit.compilation_entries()
    assert api.GeneratedC.from_entry(_stored(entry)).name == "model"
    assert compile_cache.leftovers() == []
    assert sorted(p.name for p in cache_in_tmp.iterdir() if p.name.startswith(".")) == []


def test_cache_info_and_clear(capsys: pytest.CaptureFixture[str], cache_in_tmp: Path) -> None:
    assert main(["cache", "info"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"cache directory: {cache_in_tmp}",
        "compilations: 0 entries, 0 bytes",
        "C builds: 0 entries, 0 bytes",
        "MCU builds: 0 entries, 0 bytes",
    ]
    onnxc.compile(_model())
    entry_bytes = cache_limit.compilation_entries()[0].stat().st_size
    assert main(["cache", "info"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"compilations: 1 entries, {entry_bytes} bytes"
    assert lines[2].startswith("C builds: 1 entries, ")
    assert main(["cache", "clear"]) == 0
    removed = capsys.readouterr().out
    assert removed.startswith(f"removed from {cache_in_tmp}: 1 compilations ({entry_bytes} bytes)")
    assert "1 C builds" in removed
    assert cache_limit.compilation_entries() == []
    assert not any(p for p in cache_in_tmp.rglob("*") if p.is_file())


def _fill(folder: Path, sizes: dict[str, int]) -> list[Path]:
    """Cache files of these sizes, oldest first (mtimes a minute apart)."""
    made: list[Path] = []
    for k, (name, size) in enumerate(sizes.items()):
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\0" * size)
        os.utime(path, (1_000_000 + 60 * k, 1_000_000 + 60 * k))
        made.append(path)
    return made


def test_the_least_recently_used_go_first(
    cache_in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ONNXC_CACHE_MAX_MB", "1")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    mb = 1024 * 1024
    old_entry, old_build, elf, new_entry = _fill(
        cache_in_tmp,
        {
            f"{compile_cache.ENTRY_PREFIX}a{compile_cache.ENTRY_SUFFIX}": mb // 2,
            f"{EXTENSION_PREFIX}m_a{suffix}": mb // 2,
            "elf/m-cortex-m4-a.elf": mb // 4,
            f"{compile_cache.ENTRY_PREFIX}b{compile_cache.ENTRY_SUFFIX}": mb // 2,
        },
    )
    cache_limit.touch(old_build)  # used just now: younger than the rest
    cache_limit.prune(keep=new_entry)
    assert [p.exists() for p in (old_entry, old_build, elf, new_entry)] == [
        False,
        True,
        False,
        True,
    ]


def test_the_new_file_stays_even_alone_over_the_limit(
    cache_in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ONNXC_CACHE_MAX_MB", "1")
    (big,) = _fill(cache_in_tmp, {f"{compile_cache.ENTRY_PREFIX}big.entry": 2 * 1024 * 1024})
    cache_limit.prune(keep=big)
    assert big.exists()


def test_a_ledger_keeps_the_total_between_scans(
    cache_in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ONNXC_CACHE_MAX_MB", "1")
    scans: list[int] = []
    listing = cache_limit.cached_files
    monkeypatch.setattr(cache_limit, "cached_files", lambda: scans.append(1) or listing())
    kb = 1024

    def entries(*names: str, size: int = 100 * kb) -> list[Path]:
        return _fill(cache_in_tmp, {f"{compile_cache.ENTRY_PREFIX}{n}.entry": size for n in names})

    old = entries(*"abcde")
    cache_limit.prune(keep=old[-1])  # no ledger yet: measured
    assert len(scans) == 1
    assert (cache_in_tmp / cache_limit.LEDGER).read_text() == f"{500 * kb} 0\n"
    for name in "fg":
        cache_limit.prune(keep=entries(name)[0])  # counted, not measured
    assert len(scans) == 1 and all(p.exists() for p in old)
    (big,) = entries("h", size=400 * kb)
    cache_limit.prune(keep=big)  # the count passes 1 MB: measured, the oldest go
    assert len(scans) == 2 and big.exists() and not old[0].exists()


def test_compiling_prunes_and_a_hit_counts_as_use(
    cache_in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    onnxc.compile(_model())
    (entry,) = cache_limit.compilation_entries()
    os.utime(entry, (1_000_000, 1_000_000))
    onnxc.compile(_model())  # a hit
    assert entry.stat().st_mtime > 1_000_000
    monkeypatch.setenv("ONNXC_CACHE_MAX_MB", "0")  # no limit
    assert cache_limit.limit_bytes() is None
    for bad in ("-1", "lots"):
        monkeypatch.setenv("ONNXC_CACHE_MAX_MB", bad)
        with pytest.raises(OnnxcError, match="ONNXC_CACHE_MAX_MB"):
            cache_limit.limit_bytes()


def test_weights_files_count_in_the_ledger(
    cache_in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ONNXC_CACHE_MAX_MB", "1")
    (first,) = _fill(cache_in_tmp, {f"{compile_cache.ENTRY_PREFIX}a.entry": 1000})
    cache_limit.prune(keep=first)  # measured: the ledger starts
    compile_cache.write_weights("k", np.zeros(4096, np.uint8))
    compile_cache.write("k", "header", {"m.c": "int x;\n"})
    total = int((cache_in_tmp / cache_limit.LEDGER).read_text().split()[0])
    assert total == sum(p.stat().st_size for p in cache_limit.cached_files())
