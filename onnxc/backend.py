"""`onnx.backend` interface for onnxc, so that onnx's backend test suite runs:

    import onnx.backend.test, onnxc.backend
    onnx.backend.test.BackendTest(onnxc.backend, __name__)

`prepare` compiles the model for the host and returns a `BackendRep` whose `run`
takes the inputs positionally (or as a dict) and returns the outputs in order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import onnx
from onnx.backend.base import Backend, BackendRep

from onnxc.api import CompiledModel, compile


class OnnxcBackendRep(BackendRep):
    """A compiled model behind the backend interface."""

    def __init__(self, model: CompiledModel):
        self.model = model

    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        if isinstance(inputs, Mapping):
            feeds = dict(inputs)
        else:
            if isinstance(inputs, np.ndarray):
                inputs = [inputs]
            feeds = dict(zip(self.model.input_names, inputs, strict=False))
        return tuple(self.model.run(feeds).values())


class OnnxcBackend(Backend):
    """Compiles ONNX models to C with onnxc and runs them on the CPU."""

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> OnnxcBackendRep:
        super().prepare(model, device, **kwargs)
        return OnnxcBackendRep(compile(model, name="model", **kwargs))

    @classmethod
    def run_model(
        cls,
        model: onnx.ModelProto,
        inputs: Any,
        device: str = "CPU",
        **kwargs: Any,
    ) -> tuple[np.ndarray, ...]:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(
        cls,
        node: onnx.NodeProto,
        inputs: Any,
        device: str = "CPU",
        outputs_info: Sequence[tuple[Any, Any]] | None = None,
        **kwargs: Any,
    ) -> tuple[np.ndarray, ...]:
        raise NotImplementedError("onnxc compiles whole models; use run_model")

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device.upper() == "CPU"


prepare = OnnxcBackend.prepare
run_model = OnnxcBackend.run_model
run_node = OnnxcBackend.run_node
supports_device = OnnxcBackend.supports_device
