"""The `c` target of xdsl-opt: `xdsl-opt -t c file.mlir` prints the model's C.

Registered through the package's `xdsl.universe` entry point. The output is NAME.c,
then a separator comment line, then NAME.h (use `-t "c{model_name=foo}"` to pick NAME).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from onnxc import __version__
from onnxc.emit.c_interface import print_c

HEADER_SEPARATOR = "/* ---- onnxc: header follows ---- */"


@dataclass(frozen=True)
class CTarget(Target):
    """Prints a loop-level module (func/scf/memref/arith/math/affine) as C99."""

    name = "c"

    model_name: str = "model"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        c_source, header = print_c(module, self.model_name, version=__version__)
        output.write(c_source)
        output.write(HEADER_SEPARATOR + "\n")
        output.write(header)
