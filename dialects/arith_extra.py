"""Operations of MLIR's arith dialect that xDSL does not define (yet).

`arith.remf` is the float remainder of C's `fmod` (the result has the
dividend's sign; MLIR gives it that meaning too). It is built by lowerings
and printed by the C printer by name, like any arith operation; it is not
registered with a dialect, so IR holding it is printed but not parsed back.
"""

from __future__ import annotations

from xdsl.dialects.arith import FloatingPointLikeBinaryOperation
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import Pure


@irdl_op_definition
class RemFOp(FloatingPointLikeBinaryOperation):
    """`arith.remf`: `lhs - trunc(lhs / rhs) * rhs`, exactly (C's `fmod`)."""

    name = "arith.remf"

    traits = traits_def(Pure())
