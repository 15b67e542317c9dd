"""MCU builds and emulator runs fail with one clear line each: unknown target,
missing cross-compiler or emulator, compiler errors, the harness's message on a
nonzero exit (model status, hard fault), and a timeout.

A hand-written model, `probe`, gives the harness a model that fails on demand:
input x = [status, offset]; a negative status is returned as is, otherwise the
output is the 32-bit word at byte `offset` of the workspace, an unaligned load
when offset % 4 != 0 (fine on a Cortex-M4, a fault on a Cortex-M0).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h

import onnxc
from onnxc import element_types
from onnxc.emit.cross import EmulatedC, build_elf
from onnxc.emit.runner import TensorSpec
from onnxc.errors import OnnxcError
from onnxc.targets import get_target
from tests.mcu.tools import needs_arm

PROBE_H = """\
#ifndef PROBE_H_
#define PROBE_H_
#include "onnxc_runtime.h"
#define probe_WORKSPACE_SIZE 16
#define probe_NUM_INPUTS 1
#define probe_NUM_OUTPUTS 1
extern const onnxc_tensor_info probe_inputs[];
extern const onnxc_tensor_info probe_outputs[];
int probe_run_with_workspace(void *workspace, const int32_t *x, int32_t *y);
int probe_invoke(void *workspace, size_t *workspace_size,
    const onnxc_tensor *inputs, onnxc_tensor *outputs);
#endif
"""

PROBE_C = """\
#include "probe.h"

static const int64_t probe_inputs0_shape[1] = {2};
const onnxc_tensor_info probe_inputs[] = {
  {"x", ONNXC_DTYPE_INT32, 1, probe_inputs0_shape, probe_inputs0_shape, NULL},
};
static const int64_t probe_outputs0_shape[1] = {1};
const onnxc_tensor_info probe_outputs[] = {
  {"y", ONNXC_DTYPE_INT32, 1, probe_outputs0_shape, probe_outputs0_shape, NULL},
};

int probe_run_with_workspace(void *workspace, const int32_t *x, int32_t *y) {
  const unsigned char *bytes = (const unsigned char *)workspace;
  if (x[0] < 0) {
    return x[0];
  }
  *y = *(const volatile int32_t *)(const volatile void *)(bytes + x[1]);
  return ONNXC_OK;
}

int probe_invoke(void *workspace, size_t *workspace_size,
    const onnxc_tensor *inputs, onnxc_tensor *outputs) {
  (void)workspace_size;
  outputs[0].shape[0] = 1;
  return probe_run_with_workspace(workspace, (const int32_t *)inputs[0].data,
                                  (int32_t *)outputs[0].data);
}
"""


def _probe(target: str, *, timeout: float = 30.0) -> EmulatedC:
    files = {"probe.h": PROBE_H, "probe.c": PROBE_C}
    spec = get_target(target)
    int32 = element_types.by_name("int32")
    assert int32 is not None
    elf = build_elf("probe", files, spec)
    inputs, outputs = [TensorSpec("x", int32, (2,))], [TensorSpec("y", int32, (1,))]
    return EmulatedC(elf, "probe", inputs, outputs, 16, spec, timeout=timeout)


def _tiny_model() -> onnx.ModelProto:
    graph = h.make_graph(
        [h.make_node("Relu", ["x"], ["y"])],
        "g",
        [h.make_tensor_value_info("x", T.FLOAT, [4])],
        [h.make_tensor_value_info("y", T.FLOAT, [4])],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], ir_version=10)


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty ELF cache, so that a build really happens."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("ONNXC_CACHE_DIR", str(cache))
    return cache


def test_unknown_target_lists_targets() -> None:
    message = "unknown target 'riscv32' (targets: host, host-portable, cortex-m4, cortex-m0)"
    with pytest.raises(OnnxcError, match=re.escape(message)):
        onnxc.compile(_tiny_model(), target="riscv32")
    with pytest.raises(OnnxcError, match=re.escape(message)):
        onnxc.generate_c(_tiny_model(), target="riscv32")


@pytest.mark.parametrize(
    ("tools_on_path", "target", "message"),
    [
        pytest.param(
            [],
            "cortex-m4",
            "arm-none-eabi-gcc not found on PATH; the cortex-m4 target needs it "
            "(Debian/Ubuntu: apt-get install gcc-arm-none-eabi picolibc-arm-none-eabi)",
            id="cross-compiler",
        ),
        pytest.param(
            ["arm-none-eabi-gcc"],
            "cortex-m0",
            "qemu-system-arm not found on PATH; the cortex-m0 target needs it "
            "(Debian/Ubuntu: apt-get install qemu-system-arm)",
            id="emulator",
            marks=needs_arm,
        ),
    ],
)
def test_missing_tool_names_packages(
    tools_on_path: list[str],
    target: str,
    message: str,
    fresh_cache: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a PATH holding only `tools_on_path`, compile names what to install."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in tools_on_path:
        real = shutil.which(tool)
        assert real is not None
        (folder / tool).symlink_to(real)
    monkeypatch.setenv("PATH", str(folder))
    with pytest.raises(OnnxcError) as error:
        onnxc.compile(_tiny_model(), target=target)
    assert str(error.value) == message


@needs_arm
def test_compiler_error_gives_first_error_line(fresh_cache: Path) -> None:
    broken = PROBE_C.replace("return ONNXC_OK;", "return ONNXC_OK")
    with pytest.raises(OnnxcError) as error:
        build_elf("probe", {"probe.h": PROBE_H, "probe.c": broken}, get_target("cortex-m4"))
    message = str(error.value)
    assert message.startswith("building probe for cortex-m4 failed: probe.c:")
    assert "error: expected ';'" in message and "\n" not in message
    assert not list(fresh_cache.rglob("*.elf"))


@needs_arm
def test_model_status_reaches_the_error(fresh_cache: Path) -> None:
    probe = _probe("cortex-m4")
    with pytest.raises(OnnxcError) as error:
        probe.call([np.array([-7, 0], np.int32)])
    assert str(error.value) == (
        "probe on cortex-m4: the emulator exited with status 3: "
        "onnxc_harness: the model returned status -7 (workspace 16 bytes)"
    )


@needs_arm
def test_cortex_m0_traps_unaligned_access(fresh_cache: Path) -> None:
    """An unaligned load works on the M4 but faults on the M0 target, as on the chip."""
    (aligned,) = _probe("cortex-m0").call([np.array([0, 4], np.int32)])
    np.testing.assert_array_equal(aligned, [0])
    (unaligned,) = _probe("cortex-m4").call([np.array([0, 1], np.int32)])
    np.testing.assert_array_equal(unaligned, [0])
    fault = "probe on cortex-m0: the emulator exited with status 1: ARM fault: hardfault"
    with pytest.raises(OnnxcError, match=re.escape(fault)):
        _probe("cortex-m0").call([np.array([0, 1], np.int32)])


@needs_arm
def test_timeout_says_how_long() -> None:
    model = onnxc.compile(_tiny_model(), name="tiny", target="cortex-m4", timeout=0.001)
    with pytest.raises(OnnxcError) as error:
        model.run({"x": np.zeros(4, np.float32)})
    assert str(error.value) == (
        "tiny on cortex-m4: the emulator did not finish within 0.001 s "
        "(stopped; pass a larger timeout=)"
    )


@needs_arm
def test_wrong_input_shape_is_caught_before_the_emulator() -> None:
    model = onnxc.compile(_tiny_model(), name="tiny", target="cortex-m4")
    with pytest.raises(OnnxcError, match=r"input 'x' must have shape \(4,\), got \(5,\)"):
        model.run({"x": np.zeros(5, np.float32)})


def _big(elements: int, *, in_flash: bool) -> onnx.ModelProto:
    """A model with a small input and output and `elements` floats either as
    a weight (Gather from it: flash) or as an intermediate (Expand then
    ReduceSum: the arena, in RAM)."""
    if in_flash:
        table = np.full([elements], 0.5, dtype=np.float32)
        x = h.make_tensor_value_info("x", T.INT64, [4])
        nodes = [h.make_node("Gather", ["table", "x"], ["y"])]
        weights = [onnx.numpy_helper.from_array(table, "table")]
        y = h.make_tensor_value_info("y", T.FLOAT, [4])
    else:
        x = h.make_tensor_value_info("x", T.FLOAT, [1])
        nodes = [
            h.make_node("Expand", ["x", "shape"], ["wide"]),
            h.make_node("ReduceSum", ["wide"], ["y"], keepdims=0),
        ]
        weights = [onnx.numpy_helper.from_array(np.array([elements], np.int64), "shape")]
        y = h.make_tensor_value_info("y", T.FLOAT, [])
    graph = h.make_graph(nodes, "big", [x], [y], weights)
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


@needs_arm
@pytest.mark.parametrize(
    ("in_flash", "region"), [(True, "flash"), (False, "RAM")], ids=["flash", "ram"]
)
def test_a_model_too_big_for_the_board_names_the_region_and_figures(
    in_flash: bool, region: str
) -> None:
    """5 MB of weights overflow cortex-m4's 4 MB flash; a 5 MB arena its 4 MB RAM."""
    model = _big(1_250_000, in_flash=in_flash)
    with pytest.raises(OnnxcError) as caught:
        onnxc.compile(model, name="big", target="cortex-m4")
    message = str(caught.value)
    assert "\n" not in message
    assert re.fullmatch(
        rf"building big for cortex-m4 failed: it needs [\d,]+ bytes of {region} and "
        rf"cortex-m4 has 4,194,304 \([\d,]+ too many\)",
        message,
    ), message
