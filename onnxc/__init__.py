"""onnxc: compile ONNX models to portable C99, and run them from Python.

import onnxc
m = onnxc.compile("model.onnx", dims={"N": 1})
outputs = m.run({"x": x})
"""

__version__ = "0.1.0"

from onnxc.api import CompiledModel, GeneratedC, compile, generate_c  # noqa: E402
from onnxc.errors import OnnxcError  # noqa: E402

__all__ = [
    "CompiledModel",
    "GeneratedC",
    "OnnxcError",
    "__version__",
    "compile",
    "generate_c",
]
