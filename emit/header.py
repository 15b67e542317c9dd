"""The ``NAME.h`` writer: the C contract of a generated model.

The header declares ``NAME_run``, ``NAME_run_with_workspace``, the workspace size,
the number of inputs and outputs, and the ``NAME_inputs`` / ``NAME_outputs``
description tables (see ``runtime_c/onnxc_runtime.h`` for ``onnxc_tensor_info``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CParam:
    """One graph input or output as seen from C."""

    onnx_name: str  # the tensor name in the ONNX graph
    c_name: str  # the C parameter name (sanitised, unique)
    c_type: str  # the C element type, e.g. "float"
    dtype_code: str  # an onnxc_dtype enumerator, e.g. "ONNXC_DTYPE_FLOAT"
    shape: tuple[int, ...]
    is_input: bool

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def declaration(self) -> str:
        const = "const " if self.is_input else ""
        return f"{const}{self.c_type} *{self.c_name}"


def param_list(params: list[CParam], *, workspace: bool) -> str:
    """The C parameter list of NAME_run (or NAME_run_with_workspace)."""
    parts = (["void *workspace"] if workspace else []) + [p.declaration() for p in params]
    return ", ".join(parts) if parts else "void"


def print_header(name: str, params: list[CParam], workspace_size: int, banner: str) -> str:
    """Return the text of ``NAME.h``; ``banner`` is the leading comment block."""
    guard = f"{name.upper()}_H_"
    n_in = sum(p.is_input for p in params)
    n_out = len(params) - n_in
    return "\n".join(
        [
            banner,
            f"#ifndef {guard}",
            f"#define {guard}",
            "",
            '#include "onnxc_runtime.h"',
            "",
            "#ifdef __cplusplus",
            'extern "C" {',
            "#endif",
            "",
            "/* Bytes of scratch memory (the arena) one inference needs. */",
            f"#define {name}_WORKSPACE_SIZE {workspace_size}",
            f"#define {name}_NUM_INPUTS {n_in}",
            f"#define {name}_NUM_OUTPUTS {n_out}",
            "",
            "/* Graph inputs and outputs: name, onnxc_dtype, rank, shape. */",
            f"extern const onnxc_tensor_info {name}_inputs[];",
            f"extern const onnxc_tensor_info {name}_outputs[];",
            "",
            "#ifndef ONNXC_NO_DEFAULT_ARENA",
            "/* Run one inference using the built-in static arena (not reentrant).",
            "   Returns ONNXC_OK or a negative ONNXC_ERR_* status. Define",
            "   ONNXC_NO_DEFAULT_ARENA when building to drop it and its arena. */",
            f"int {name}_run({param_list(params, workspace=False)});",
            "#endif",
            "",
            f"/* Same, with a caller-provided arena of {name}_WORKSPACE_SIZE bytes,",
            "   aligned to ONNXC_ARENA_ALIGN; NULL or misaligned is an error.",
            "   Instances with separate workspaces may run concurrently. */",
            f"int {name}_run_with_workspace({param_list(params, workspace=True)});",
            "",
            "/* Same, with tensors as arrays of pointers in the order of",
            f"   {name}_inputs and {name}_outputs (for generic drivers). */",
            f"int {name}_invoke(void *workspace, const void *const *inputs, void *const *outputs);",
            "",
            "#ifdef __cplusplus",
            "}",
            "#endif",
            "",
            f"#endif /* {guard} */",
            "",
        ]
    )
