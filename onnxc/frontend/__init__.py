"""The front end: an ONNX model (a file or a ModelProto) into the onnx dialect.

- `load.py` reads the model (external data from its folder only);
- `prepare.py` rewrites the proto in the order of `REWRITES`, each rewrite a
  module of `rewrites/`, the sequence and optional resolver in `sequences/`;
- `graph_importer.py` builds the IR (`import_model`).

This is the only package that reads protobuf.
"""

from onnxc.frontend.domains import DOMAINS
from onnxc.frontend.graph_importer import ImportedModel, import_model
from onnxc.frontend.load import ModelLike, load_model
from onnxc.frontend.prepare import REWRITE_NAMES, REWRITES, Prepared, prepare_model

__all__ = [
    "DOMAINS",
    "REWRITES",
    "REWRITE_NAMES",
    "ImportedModel",
    "ModelLike",
    "Prepared",
    "import_model",
    "load_model",
    "prepare_model",
]
