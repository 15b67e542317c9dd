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
    """A compiled model behind the backend interface. A model with sequence or
    optional inputs is compiled at its first run, for the lengths and presence
    of the inputs given then (onnxc resolves sequences at compile time), and
    again for inputs of another length."""

    def __init__(self, model: onnx.ModelProto, options: dict[str, Any]):
        self.proto = model
        self.options = options
        self.containers = [v.name for v in model.graph.input if not v.type.HasField("tensor_type")]
        defaults = {t.name for t in model.graph.initializer}  # inputs with a default come last
        self.input_names = [v.name for v in model.graph.input if v.name not in defaults]
        self.input_names += [v.name for v in model.graph.input if v.name in defaults]
        self.compiled: dict[str, CompiledModel] = {}
        if not self.containers:
            self.model = compile(model, name="model", **options)

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        if isinstance(inputs, Mapping):
            feeds = dict(inputs)
        else:
            if isinstance(inputs, np.ndarray):
                inputs = [inputs]
            feeds = dict(zip(self.input_names, inputs, strict=False))
        return tuple(self._model_for(feeds).run(feeds).values())

    def _model_for(self, feeds: Mapping[str, Any]) -> CompiledModel:
        if not self.containers:
            return self.model
        shapes = dict(self.options.get("shapes") or {})
        for name in self.containers:
            value = feeds.get(name)
            if value is None or isinstance(value, np.ndarray):
                shapes[name] = None if value is None else value.shape
            else:
                shapes[name] = [np.shape(item) for item in value]
        key = repr(sorted(shapes.items()))
        if key not in self.compiled:
            options = {**self.options, "shapes": shapes}
            self.compiled[key] = compile(self.proto, name="model", **options)
        return self.compiled[key]


class OnnxcBackend(Backend):
    """Compiles ONNX models to C with onnxc and runs them on the CPU."""

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> OnnxcBackendRep:
        super().prepare(model, device, **kwargs)
        return OnnxcBackendRep(model, kwargs)

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
