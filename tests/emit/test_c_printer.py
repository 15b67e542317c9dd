"""The C printer: hand-written loop-level modules printed as C, checked as text and
compiled with gcc / clang / arm-none-eabi-gcc at -std=c99 -Wall -Wextra -pedantic
-Werror. Running the C is covered by tests/emit/test_build.py."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import affine, arith, builtin, func, math, memref, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType, f64
from xdsl.parser import Parser

from onnxc.emit.c_interface import print_c
from onnxc.emit.c_names import Namer, sanitize
from onnxc.emit.c_types import float_literal
from onnxc.errors import CEmitError
from onnxc.runtime_c import runtime_dir, runtime_files

WARN = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"]


def parse(text: str) -> ModuleOp:
    ctx = Context()
    for d in (
        builtin.Builtin,
        func.Func,
        memref.MemRef,
        scf.Scf,
        arith.Arith,
        math.Math,
        affine.Affine,
    ):
        ctx.load_dialect(d)
    return Parser(ctx, text).parse_module()


def weight(sym: str, shape: str, elt: str, values: str) -> str:
    """A memref.global in generic form (xDSL 0.74 has no custom syntax for it)."""
    return (
        f'"memref.global"() <{{sym_name = "{sym}", sym_visibility = "private", '
        f"type = memref<{shape}x{elt}>, initial_value = dense<{values}> : "
        f"tensor<{shape}x{elt}>, constant}}> : () -> ()\n"
    )


ELEMENTWISE = (
    weight("bias.0", "3", "f32", "[0.1, -2.5, 3.0e38]")
    + """
func.func @main(%x: memref<2x3xf32>, %y: memref<2x3xf32>, %z: memref<6xf32>)
    attributes {onnxc.input_names = ["input.1", "y"], onnxc.output_names = ["out/0"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %b = memref.get_global @bias.0 : memref<3xf32>
  %arena = memref.alloc() {onnxc.arena} : memref<24xi8>
  %t = memref.view %arena[%c0][] : memref<24xi8> to memref<2x3xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %a = memref.load %x[%i, %j] : memref<2x3xf32>
      %bb = memref.load %y[%i, %j] : memref<2x3xf32>
      %w = memref.load %b[%j] : memref<3xf32>
      %s = arith.addf %a, %bb {onnxc.comment = "Add: node */ add_1"} : f32
      %s2 = arith.addf %s, %w : f32
      %cst = arith.constant -1.5 : f32
      %s3 = arith.maximumf %s2, %cst : f32
      memref.store %s3, %t[%i, %j] : memref<2x3xf32>
    }
  }
  %flat = memref.collapse_shape %t [[0, 1]] : memref<2x3xf32> into memref<6xf32>
  "memref.copy"(%flat, %z) : (memref<6xf32>, memref<6xf32>) -> ()
  func.return
}
"""
)

# Row sums and row maxima of a 4x5 matrix: scf.for with two iter_args.
REDUCTION = """
func.func @main(%x: memref<4x5xf32>, %sum: memref<4xf32>, %mx: memref<4xf32>)
    attributes {onnxc.input_names = ["x"], onnxc.output_names = ["sum", "max"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %r:2 = scf.for %j = %c0 to %c5 step %c1 iter_args(%acc = %zero, %m = %ninf)
        -> (f32, f32) {
      %v = memref.load %x[%i, %j] : memref<4x5xf32>
      %n = arith.addf %acc, %v : f32
      %nm = arith.maximumf %m, %v : f32
      scf.yield %n, %nm : f32, f32
    }
    memref.store %r#0, %sum[%i] : memref<4xf32>
    memref.store %r#1, %mx[%i] : memref<4xf32>
  }
  func.return
}
"""

# 1-D convolution, kernel 3, padding 1: affine.apply indexing and scf.if bounds.
CONV = (
    weight("conv.w", "3", "f32", "[0.25, 0.5, -1.0]")
    + """
func.func @main(%x: memref<1x8xf32>, %y: memref<1x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @conv.w : memref<3xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %acc = scf.for %k = %c0 to %c3 step %c1 iter_args(%a = %zero) -> (f32) {
      %p = affine.apply affine_map<(d0, d1) -> (d0 + d1 - 1)>(%i, %k)
      %lo = arith.cmpi sge, %p, %c0 : index
      %hi = arith.cmpi slt, %p, %c8 : index
      %in = arith.andi %lo, %hi : i1
      %t = scf.if %in -> (f32) {
        %xv = memref.load %x[%c0, %p] : memref<1x8xf32>
        %wv = memref.load %w[%k] : memref<3xf32>
        %m = arith.mulf %xv, %wv : f32
        %s = arith.addf %a, %m : f32
        scf.yield %s : f32
      } else {
        scf.yield %a : f32
      }
      scf.yield %t : f32
    }
    memref.store %acc, %y[%c0, %i] : memref<1x8xf32>
  }
  func.return
}
"""
)

# floordiv / mod / ceildiv of negative numbers, as int64 (Python semantics).
AFFINE_DIV = """
func.func @main(%o: memref<3x8xi64>) attributes {onnxc.output_names = ["o"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %f = affine.apply affine_map<(d0) -> ((d0 - 4) floordiv 3)>(%i)
    %m = affine.apply affine_map<(d0) -> ((d0 - 4) mod 3)>(%i)
    %c = affine.apply affine_map<(d0) -> ((d0 - 4) ceildiv 3)>(%i)
    %fi = arith.index_cast %f : index to i64
    %mi = arith.index_cast %m : index to i64
    %ci = arith.index_cast %c : index to i64
    memref.store %fi, %o[%c0, %i] : memref<3x8xi64>
    memref.store %mi, %o[%c1, %i] : memref<3x8xi64>
    memref.store %ci, %o[%c2, %i] : memref<3x8xi64>
  }
  func.return
}
"""

# Integer ops on i32 (wrapping add, C-truncating and floor division), a compare to
# i1 (bool output), conversions, and an int weight with INT32_MIN.
INTEGER = (
    weight("k", "4", "i32", "[-2147483648, -7, 3, 1]")
    + """
func.func @main(%a: memref<4xi32>, %b: memref<4xi32>, %sum: memref<4xi32>,
                %q: memref<4xi32>, %fq: memref<4xi32>, %lt: memref<4xi1>,
                %f: memref<4xf32>, %w: memref<4xi32>)
    attributes {onnxc.input_names = ["a", "b"],
                onnxc.output_names = ["sum", "q", "fq", "lt", "f", "w"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %kk = memref.get_global @k : memref<4xi32>
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xi32>
    %y = memref.load %b[%i] : memref<4xi32>
    %s = arith.addi %x, %y : i32
    %d = arith.divsi %x, %y : i32
    %fd = arith.floordivsi %x, %y : i32
    %l = arith.cmpi slt, %x, %y : i32
    %xf = arith.sitofp %x : i32 to f32
    %half = arith.constant 0.5 : f32
    %hf = arith.mulf %xf, %half : f32
    %sel = arith.select %l, %hf, %xf : f32
    %kv = memref.load %kk[%i] : memref<4xi32>
    %x64 = arith.extsi %x : i32 to i64
    %k64 = arith.extsi %kv : i32 to i64
    %p64 = arith.muli %x64, %k64 : i64
    %p = arith.trunci %p64 : i64 to i32
    memref.store %s, %sum[%i] : memref<4xi32>
    memref.store %d, %q[%i] : memref<4xi32>
    memref.store %fd, %fq[%i] : memref<4xi32>
    memref.store %l, %lt[%i] : memref<4xi1>
    memref.store %sel, %f[%i] : memref<4xf32>
    memref.store %p, %w[%i] : memref<4xi32>
  }
  func.return
}
"""
)

MATH = """
func.func @main(%x: memref<6xf32>, %y: memref<7x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  scf.for %i = %c0 to %c6 step %c1 {
    %v = memref.load %x[%i] : memref<6xf32>
    %e = math.exp %v : f32
    %t = math.tanh %v : f32
    %r = math.erf %v : f32
    %a = math.absf %v : f32
    %s = math.sqrt %a : f32
    %f = math.floor %v : f32
    %n = math.roundeven %v : f32
    memref.store %e, %y[%c0, %i] : memref<7x6xf32>
    memref.store %t, %y[%c1, %i] : memref<7x6xf32>
    memref.store %r, %y[%c2, %i] : memref<7x6xf32>
    memref.store %s, %y[%c3, %i] : memref<7x6xf32>
    memref.store %f, %y[%c4, %i] : memref<7x6xf32>
    memref.store %n, %y[%c5, %i] : memref<7x6xf32>
    memref.store %a, %y[%c6, %i] : memref<7x6xf32>
  }
  func.return
}
"""

# A weight of specials in f64, copied out; a rank-0 output; no arena.
F64_SCALAR = (
    weight("w64", "4", "f64", "[1.5, -2.0, 0.1, 1.0e300]")
    + """
func.func @main(%y: memref<4xf64>, %s: memref<f64>)
    attributes {onnxc.input_names = [], onnxc.output_names = ["y", "s"]} {
  %w = memref.get_global @w64 : memref<4xf64>
  "memref.copy"(%w, %y) : (memref<4xf64>, memref<4xf64>) -> ()
  %c = arith.constant 42.0 : f64
  memref.store %c, %s[] : memref<f64>
  func.return
}
"""
)

MODULES = {
    "elementwise": ELEMENTWISE,
    "reduction": REDUCTION,
    "conv": CONV,
    "affine_div": AFFINE_DIV,
    "integer": INTEGER,
    "math": MATH,
    "f64_scalar": F64_SCALAR,
}


def write_model(tmp_path: Path, text: str, name: str = "model") -> Path:
    c_source, header = print_c(parse(text), name, options_comment="test")
    (tmp_path / f"{name}.c").write_text(c_source)
    (tmp_path / f"{name}.h").write_text(header)
    for f in runtime_files():
        shutil.copy(f, tmp_path)
    return tmp_path / f"{name}.c"


def compile_c(cc: str, flags: list[str], source: Path) -> None:
    obj = source.with_suffix(f".{Path(cc).name}.o")
    cmd = [cc, *WARN, *flags, "-c", str(source), "-o", str(obj)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=source.parent)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("key", sorted(MODULES))
def test_gcc_warning_free(tmp_path: Path, key: str) -> None:
    compile_c("gcc", ["-O2"], write_model(tmp_path, MODULES[key]))


@pytest.mark.parametrize("key", sorted(MODULES))
def test_clang_warning_free(tmp_path: Path, key: str) -> None:
    if shutil.which("clang") is None:
        pytest.skip("clang not installed")
    compile_c("clang", ["-O2"], write_model(tmp_path, MODULES[key]))


@pytest.mark.parametrize("key", sorted(MODULES))
def test_arm_none_eabi_warning_free(tmp_path: Path, key: str) -> None:
    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("arm-none-eabi-gcc not installed (apt-get install gcc-arm-none-eabi)")
    flags = ["-Os", "-mcpu=cortex-m4", "-mthumb"]
    compile_c("arm-none-eabi-gcc", flags, write_model(tmp_path, MODULES[key]))


def test_generated_c_shape() -> None:
    c_source, header = print_c(parse(ELEMENTWISE), "net", options_comment="O=2")
    assert "/* Add: node * / add_1 */" in c_source  # comment sanitised
    assert "#define net_WORKSPACE_SIZE 24" in header
    assert "#define net_NUM_INPUTS 2" in header
    assert "int net_run(const float *input_1, const float *y, float *out_0);" in header
    assert "net_run_with_workspace(void *workspace, const float *input_1" in header
    assert 'extern "C"' in header and "#ifndef NET_H_" in header
    assert "input_1[i * 3 + j]" in c_source  # linearised row-major offset
    assert "static const float bias_0[3]" in c_source
    assert "0.100000001f, (-2.5f), 3.00000001e+38f," in c_source
    assert '{"out/0", ONNXC_DTYPE_FLOAT, 1, net_outputs0_shape' in c_source
    assert "O=2" in c_source and "onnxc" in c_source.splitlines()[0]
    includes = [ln for ln in c_source.splitlines() if ln.startswith("#include")]
    assert includes == [
        '#include "net.h"',
        "#include <math.h>",
        "#include <stddef.h>",
        "#include <stdint.h>",
    ]


@pytest.mark.parametrize("key", sorted(MODULES))
def test_no_libc_beyond_math(key: str) -> None:
    c_source, header = print_c(parse(MODULES[key]), "model")
    for text in (c_source, header):
        for banned in ("malloc", "printf", "stdio", "free(", "memcpy"):
            assert banned not in text


def test_deterministic() -> None:
    for text in MODULES.values():
        first = print_c(parse(text), "model")
        assert print_c(parse(text), "model") == first
        module = parse(text)
        assert print_c(module, "model") == print_c(module, "model")


def test_empty_arena_and_no_inputs() -> None:
    c_source, header = print_c(parse(F64_SCALAR), "m")
    assert "#define m_WORKSPACE_SIZE 0" in header
    assert "int m_run(double *y, double *s);" in header
    assert "{NULL, ONNXC_DTYPE_UNDEFINED, 0, NULL, NULL, NULL}" in c_source  # no inputs
    assert "1.5, (-2.0), 0.10000000000000001, 1.0000000000000001e+300," in c_source
    assert "arena +" not in c_source


def test_special_float_weights() -> None:
    module = parse(F64_SCALAR)
    (g,) = [op for op in module.ops if isinstance(op, memref.GlobalOp)]
    specials = [float("inf"), float("-inf"), float("nan"), -0.0]
    value = DenseIntOrFPElementsAttr.from_list(TensorType(f64, [4]), specials)
    g.properties["initial_value"] = value
    c_source, _ = print_c(module, "m")
    assert "INFINITY, (-INFINITY), NAN, (-0.0)," in c_source


def test_f32_exp_and_tanh_print_as_the_runtimes() -> None:
    c_source, _ = print_c(parse(MATH), "m")
    assert "onnxc_expf(" in c_source and "onnxc_tanhf(" in c_source  # vectorisable
    assert "erff(" in c_source and " expf(" not in c_source and " tanhf(" not in c_source


def test_default_names_without_attributes() -> None:
    c_source, header = print_c(parse(CONV), "m")
    assert "int m_run(const float *arg0, float *arg1);" in header
    assert "onnxc_floordiv" not in c_source and "p = i + k - 1;" in c_source


def test_float_literals_round_trip() -> None:
    import numpy as np
    from xdsl.dialects.builtin import f32

    for v in np.array([0.1, 1 / 3, 3.4028235e38, 1e-45, -7.0, 16777217], np.float32).tolist():
        text = float_literal(v, f32).strip("()")
        assert np.float32(float(text.rstrip("f"))) == np.float32(v)
    assert float_literal(1.0, f32) == "1.0f" and float_literal(2.0, f64) == "2.0"


def test_sanitize() -> None:
    assert sanitize("input.1") == "input_1"
    assert sanitize("0x") == "t_0x"
    assert sanitize("__w") == "w"


def test_names_avoid_the_c_library() -> None:
    """Tensors named like math.h functions or stdint types (a rotary
    embedding's `cos` and `sin` caches) get other identifiers."""
    namer = Namer()
    assert [namer.take(n) for n in ("sin", "cos", "expf", "int8_t", "x")] == [
        "sin_1",
        "cos_1",
        "expf_1",
        "int8_t_1",
        "x",
    ]


def test_bad_name_and_unsupported_op() -> None:
    with pytest.raises(CEmitError, match="C identifier"):
        print_c(parse(CONV), "my-model")
    bad = """
func.func @main(%x: memref<2xi32>, %y: memref<2xi32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<2xi32>
  %w = math.ctlz %v {onnxc.comment = "Weird_0"} : i32
  memref.store %w, %y[%c0] : memref<2xi32>
  func.return
}
"""
    with pytest.raises(CEmitError, match="math.ctlz.*Weird_0"):
        print_c(parse(bad), "m")


def test_unplanned_alloc_is_rejected() -> None:
    unplanned = """
func.func @main(%x: memref<2xf32>) {
  %t = memref.alloc() : memref<2xf32>
  "memref.copy"(%x, %t) : (memref<2xf32>, memref<2xf32>) -> ()
  func.return
}
"""
    with pytest.raises(CEmitError, match="run plan-memory"):
        print_c(parse(unplanned), "m")


def test_runtime_files() -> None:
    assert runtime_dir().is_dir()
    assert [p.name for p in runtime_files()] == ["onnxc_runtime.h"]


def _copy_from_global(t: str) -> str:
    """A function copying a constant global of memref type `t` to its output."""
    return f"""
"memref.global"() <{{sym_name = "w", sym_visibility = "private", type = {t},
    initial_value = dense<1.0> : tensor<2x3xf32>, constant}}> : () -> ()
func.func @main(%y: memref<2x3xf32>) {{
  %w = memref.get_global @w : {t}
  "memref.copy"(%w, %y) : ({t}, memref<2x3xf32>) -> ()
  func.return
}}
"""


@pytest.mark.parametrize("layout", ["", ", affine_map<(d0, d1) -> (d0, d1)>"])
def test_identity_layouts_print(layout: str) -> None:
    print_c(parse(_copy_from_global(f"memref<2x3xf32{layout}>")), "m")


def test_other_layouts_are_rejected() -> None:
    transposed = _copy_from_global("memref<2x3xf32, affine_map<(d0, d1) -> (d1, d0)>>")
    with pytest.raises(CEmitError, match="identity layout"):
        print_c(parse(transposed), "m")
