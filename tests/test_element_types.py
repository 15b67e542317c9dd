"""The element-type table agrees with ONNX, numpy, xDSL and the C runtime."""

from __future__ import annotations

import re

import numpy as np
import onnx
from onnx import helper

from onnxc import element_types
from onnxc.ir_names import ARENA_ALIGN
from onnxc.runtime_c import runtime_dir

HEADER = (runtime_dir() / "onnxc_runtime.h").read_text()


def test_rows_agree_with_onnx_and_numpy() -> None:
    for row in element_types.ELEMENT_TYPES:
        assert onnx.TensorProto.DataType.Name(row.onnx_code) == row.name.upper()
        assert helper.tensor_dtype_to_np_dtype(row.onnx_code) == row.numpy_dtype
        assert row.size == row.numpy_dtype.itemsize
        assert element_types.by_onnx_code(row.onnx_code) is row
        assert element_types.of_ir(row.ir_type) is row
        assert element_types.of_numpy(row.numpy_dtype) is row
    assert len({row.ir_type for row in element_types.ELEMENT_TYPES}) == len(
        element_types.ELEMENT_TYPES
    )


def test_runtime_enum_is_onnx_data_type() -> None:
    enum = dict(re.findall(r"(ONNXC_DTYPE_\w+) = (\d+)", HEADER))
    assert {k: int(v) for k, v in enum.items()} == {
        f"ONNXC_DTYPE_{name}": code for name, code in onnx.TensorProto.DataType.items()
    }
    for row in element_types.ELEMENT_TYPES:
        assert row.enum in enum


def _switch(function: str) -> dict[str, int]:
    """The `case X: ... return N;` table of a runtime function."""
    body = HEADER[HEADER.index(f"{function}(") :]
    body = body[: body.index("default:")]
    values: dict[str, int] = {}
    pending: list[str] = []
    for token in re.findall(r"case (ONNXC_DTYPE_\w+):|return (\d+);", body):
        case, value = token
        if case:
            pending.append(case)
        else:
            values.update(dict.fromkeys(pending, int(value)))
            pending = []
    return values


def test_runtime_sizes_match_the_table() -> None:
    rows = element_types.ELEMENT_TYPES
    assert _switch("onnxc_dtype_size") == {r.enum: r.size for r in rows if r.packing == 1}
    assert _switch("onnxc_dtype_bits") == {r.enum: r.bits for r in rows if r.packing > 1}


def test_arena_alignment_matches_the_header() -> None:
    assert f"#define ONNXC_ARENA_ALIGN {ARENA_ALIGN}\n" in HEADER


def test_storage_of_narrow_floats_and_bool() -> None:
    f16 = element_types.by_name("float16")
    bf16 = element_types.by_name("bfloat16")
    boolean = element_types.by_name("bool")
    assert f16 is not None and bf16 is not None and boolean is not None
    assert f16.c_type == bf16.c_type == "uint16_t" and f16.compute_type is not None
    assert boolean.c_type == "uint8_t" and boolean.numpy_dtype == np.bool_
