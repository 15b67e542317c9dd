"""The optimizers of ai.onnx.preview.training (Adagrad, Adam, Momentum) as
default-domain arithmetic: one update step of each optimized tensor, as the
operator schemas' pseudo code writes it (onnx.reference computes the same).

Each takes the learning rate R and the update count T (int64 scalars, the
same for every tensor), then the n optimized tensors X, then n tensors of
each kind of state (their gradients G, then what the optimizer keeps); it
gives the n new X, then the n new values of each kept state. The
arithmetic is in X's element type (R and T are cast to it); any output
may be left empty.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from onnxc.frontend.expansions.expander import Expander, Expansions


def _groups(x: Expander, kinds: Sequence[str], kept: int) -> list[list[str]]:
    """The node's inputs after R and T as `len(kinds)` lists of n names (X,
    G, then the states), after checking that the inputs and the outputs
    (`kept` lists of n) come in whole groups."""
    count, rest = divmod(len(x.node.input) - 2, len(kinds))
    if count < 1 or rest:
        raise x.refuse(
            f"its {len(x.node.input)} inputs are not R, T and n of each of {', '.join(kinds)}"
        )
    if len(x.node.output) > kept * count:
        raise x.refuse(f"it has {len(x.node.output)} outputs for {count} optimized tensors")
    return [
        [x.needed(2 + k * count + i, f"{kind}{i + 1}") for i in range(count)]
        for k, kind in enumerate(kinds)
    ]


def _attribute(x: Expander, name: str, default: float | None = None) -> float:
    """Float attribute `name`, its default rounded to float32 as the schema
    stores it: a node that leaves an attribute out computes as one that
    gives its default (onnx.reference reads the schema's float32 too)."""
    return x.float_attribute(name, None if default is None else float(np.float32(default)))


def _into(x: Expander, index: int, op_type: str, *inputs: str) -> str:
    """A one-output node written into the node's output `index` when it has
    one (a fresh name otherwise)."""
    name = x.output(index)
    return x.add(op_type, inputs, [name] if name else 1)[0]


def _regularized(x: Expander, value: str, gradient: str) -> str:
    """G_regularized = norm_coefficient * X + G."""
    norm = x.like(_attribute(x, "norm_coefficient", 0.0), value, "norm_coefficient")
    return x.op("Add", x.op("Mul", norm, value), gradient)


def _started(x: Expander) -> str:
    """T > 0 (bool): whether this is not the first update."""
    return x.op("Greater", x.needed(1, "T"), x.constant(0, "zero"))


def _rate_and_steps(x: Expander, values: Sequence[str]) -> tuple[str, str]:
    """R and T cast to the optimized tensors' element type (one type for
    all of them), in which the learning rate is adjusted."""
    rate = x.op("CastLike", x.needed(0, "R"), values[0])
    return rate, x.op("CastLike", x.needed(1, "T"), rate)


def _adagrad(x: Expander) -> None:
    """r = R / (1 + T * decay_factor); G_reg = norm_coefficient * X + G;
    H_new = H + G_reg^2; X_new = X - r * G_reg / (Sqrt(H_new) + epsilon)."""
    values, gradients, squares = _groups(x, ["X", "G", "H"], 2)
    count = len(values)
    rate, steps = _rate_and_steps(x, values)
    decay = x.like(_attribute(x, "decay_factor", 0.0), rate, "decay_factor")
    decayed = x.op("Add", x.like(1.0, rate, "one"), x.op("Mul", steps, decay))
    rate = x.op("Div", rate, decayed)
    epsilon = _attribute(x, "epsilon", 1e-6)
    for i, (value, gradient, square) in enumerate(zip(values, gradients, squares, strict=True)):
        regularized = _regularized(x, value, gradient)
        accumulated = _into(x, count + i, "Add", square, x.op("Mul", regularized, regularized))
        adaptive = x.op("Add", x.op("Sqrt", accumulated), x.like(epsilon, value, "epsilon"))
        step = x.op("Mul", rate, regularized)
        _into(x, i, "Sub", value, x.op("Div", step, adaptive))


def _adam(x: Expander) -> None:
    """G_reg = norm_coefficient * X + G; V_new = alpha * V + (1 - alpha) *
    G_reg; H_new = beta * H + (1 - beta) * G_reg^2; R_adj = R * Sqrt(1 -
    beta^T) / (1 - alpha^T) when T > 0, else R; X_new = (1 -
    norm_coefficient_post) * (X - R_adj * V_new / (Sqrt(H_new) + epsilon))."""
    values, gradients, moments, squares = _groups(x, ["X", "G", "V", "H"], 3)
    count = len(values)
    alpha, beta = _attribute(x, "alpha", 0.9), _attribute(x, "beta", 0.999)
    epsilon = _attribute(x, "epsilon", 1e-6)
    post = _attribute(x, "norm_coefficient_post", 0.0)
    rate, steps = _rate_and_steps(x, values)
    one = x.like(1.0, rate, "one")

    def complement_power(base: float) -> str:
        """1 - base^T."""
        return x.op("Sub", one, x.op("Pow", x.like(base, rate, "base"), steps))

    corrected = x.op(
        "Div",
        x.op("Mul", rate, x.op("Sqrt", complement_power(beta))),
        complement_power(alpha),
    )
    rate = x.op("Where", _started(x), corrected, rate)
    for i, (value, gradient, moment, square) in enumerate(
        zip(values, gradients, moments, squares, strict=True)
    ):
        regularized = _regularized(x, value, gradient)
        new_moment = _into(
            x,
            count + i,
            "Add",
            x.op("Mul", x.like(alpha, value, "alpha"), moment),
            x.op("Mul", x.like(1.0 - alpha, value, "one_minus_alpha"), regularized),
        )
        squared = x.op("Mul", regularized, regularized)
        new_square = _into(
            x,
            2 * count + i,
            "Add",
            x.op("Mul", x.like(beta, value, "beta"), square),
            x.op("Mul", x.like(1.0 - beta, value, "one_minus_beta"), squared),
        )
        adaptive = x.op("Add", x.op("Sqrt", new_square), x.like(epsilon, value, "epsilon"))
        step = x.op("Mul", rate, x.op("Div", new_moment, adaptive))
        updated = x.op("Sub", value, step)
        _into(x, i, "Mul", x.like(1.0 - post, value, "one_minus_post"), updated)


def _momentum(x: Expander) -> None:
    """G_reg = norm_coefficient * X + G; V_new = alpha * V + beta' * G_reg,
    beta' = beta when T > 0, else 1; X_new = X - R * V_new ("standard"), or
    X - R * (G_reg + alpha * V_new) ("nesterov")."""
    values, gradients, moments = _groups(x, ["X", "G", "V"], 2)
    count = len(values)
    mode = x.attribute("mode", b"standard")
    mode = mode.decode() if isinstance(mode, bytes) else str(mode)
    if mode not in ("standard", "nesterov"):
        raise x.refuse(f"mode '{mode}' is neither 'standard' nor 'nesterov'")
    alpha, beta = _attribute(x, "alpha"), _attribute(x, "beta")
    rate, started = x.needed(0, "R"), _started(x)
    for i, (value, gradient, moment) in enumerate(zip(values, gradients, moments, strict=True)):
        regularized = _regularized(x, value, gradient)
        scale = x.op("Where", started, x.like(beta, value, "beta"), x.like(1.0, value, "one"))
        alpha_like = x.like(alpha, value, "alpha")
        new_moment = _into(
            x,
            count + i,
            "Add",
            x.op("Mul", alpha_like, moment),
            x.op("Mul", scale, regularized),
        )
        direction = new_moment
        if mode == "nesterov":
            direction = x.op("Add", regularized, x.op("Mul", alpha_like, new_moment))
        step = x.op("Mul", x.op("CastLike", rate, value), direction)
        _into(x, i, "Sub", value, step)


EXPANSIONS: Expansions = {"Adagrad": _adagrad, "Adam": _adam, "Momentum": _momentum}
