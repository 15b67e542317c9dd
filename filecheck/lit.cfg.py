"""lit configuration: FileCheck tests of every pass, the dialect and the importer.

Run with `lit filecheck` (or `lit -v filecheck/<folder>`) after installing the
package; `xdsl-opt` finds onnxc's dialects, passes and C target through the
package's xdsl.universe entry point.
"""

import os
import sys

import lit.formats

config.name = "onnxc"  # noqa: F821 - `config` is provided by lit
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir", ".py", ".test"]  # noqa: F821
config.excludes = ["lit.cfg.py"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
# Tools of the interpreter running lit (a virtual environment's xdsl-opt, filecheck).
config.environment["PATH"] = os.pathsep.join(  # noqa: F821
    [os.path.dirname(sys.executable), os.environ.get("PATH", "")]
)
config.substitutions.append(("%python", sys.executable))  # noqa: F821
# Where the tools import onnxc from, when a worktree is tested in place.
for name in ("PYTHONPATH", "ONNXC_WORKTREE"):
    if name in os.environ:
        config.environment[name] = os.environ[name]  # noqa: F821
