"""onnxc: compile ONNX models to portable C99, and run them from Python.

import onnxc
m = onnxc.compile("model.onnx", dims={"N": 1})
outputs = m.run({"x": x})

The public names load on first use, so that tools importing one part of the
package (xdsl-opt loading the dialect, say) do not import all of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from onnxc.api import CompiledModel, GeneratedC, compile, generate_c
    from onnxc.errors import OnnxcError

__all__ = [
    "CompiledModel",
    "GeneratedC",
    "OnnxcError",
    "__version__",
    "compile",
    "generate_c",
]

_LAZY = {
    "CompiledModel": "onnxc.api",
    "GeneratedC": "onnxc.api",
    "compile": "onnxc.api",
    "generate_c": "onnxc.api",
    "OnnxcError": "onnxc.errors",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'onnxc' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value
