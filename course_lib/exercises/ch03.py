"""Chapter 3 exercises (backpropagation): Jacobians and gradients by hand, a gate's backward
pass; and the chapter's questions.

References: ``course_lib.backprop.matrix_calculus`` (``softmax_jacobian``, ``cross_entropy_grad``,
``affine_gradients``, ``activation_derivative``), ``course_lib.backprop.MultiplyGate``.
"""

from __future__ import annotations

import torch

from course_lib.backprop import MultiplyGate
from course_lib.backprop.matrix_calculus import (
    activation_derivative,
    affine_gradients,
    cross_entropy_grad,
    softmax_jacobian,
)
from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.exercises.quiz import Question, register_questions


def _logits(gen, C=4):
    return torch.randn(C, generator=gen, dtype=torch.float64) * 2  # (C,)


def _jacobian_cases(gen):
    cases = [Case((_logits(gen, 3 + i),), label=f"random {i}") for i in range(3)]
    cases.append(
        Case(
            (torch.tensor([50.0, 0.0, -50.0], dtype=torch.float64),),
            label="edge: one-hot-like softmax",
        )
    )
    return cases


def _ce_cases(gen):
    cases = []
    for i in range(4):
        z = _logits(gen, 5)
        cases.append(
            Case(
                (z, int(torch.randint(0, 5, (1,), generator=gen))), label=f"random {i}"
            )
        )
    return cases


def _affine_cases(gen):
    cases = []
    for i, (m, n) in enumerate([(3, 4), (2, 5), (4, 4)]):
        delta = torch.randn(m, generator=gen, dtype=torch.float64)
        W = torch.randn(m, n, generator=gen, dtype=torch.float64)
        x = torch.randn(n, generator=gen, dtype=torch.float64)
        cases.append(Case((delta, W, x), label=f"random {i} (m = {m}, n = {n})"))
    return cases


def _affine_transposed(delta, W, x):
    return {"W": torch.outer(x, delta), "b": delta.clone(), "x": W.T @ delta}


def _activation_cases(gen):
    cases = [
        Case(
            (torch.randn(5, generator=gen, dtype=torch.float64) * 2, act),
            label=f"random {act}",
        )
        for act in ("tanh", "sigmoid", "relu")
    ]
    zero = torch.tensor([-1.0, 0.0, 1.0], dtype=torch.float64)
    cases.append(
        Case((zero, "relu"), label="edge: relu at 0 (taken as 0, as torch does)")
    )
    return cases


def _activation_wrong(z, activation):
    if activation == "tanh":
        return 1 - torch.tanh(z)
    if activation == "sigmoid":
        return torch.sigmoid(z) * (1 - torch.sigmoid(-z))
    return (z >= 0).to(z.dtype)


def _multiply_backward(x, y, dz):
    """The multiply gate's downstream gradients (dx, dy), from MultiplyGate."""
    gate = MultiplyGate()
    gate.forward(x, y)
    return gate.backward(dz)


def _multiply_cases(gen):
    def r(*shape):
        return torch.randn(*shape, generator=gen, dtype=torch.float64)

    cases = [
        Case((r(3), r(3), r(3)), label="edge: same shapes (3,)"),
        Case((r(2, 3), r(3), r(2, 3)), label="edge: y (3,) broadcast over 2 rows"),
        Case((r(4, 1), r(1, 5), r(4, 5)), label="edge: (4, 1) times (1, 5)"),
    ]
    for i in range(2):
        cases.append(Case((r(3, 4), r(4), r(3, 4)), label=f"random {i}"))
    return cases


def _multiply_swapped(x, y, dz):
    return dz * x, dz * y  # each input's own value instead of the other's


def _multiply_no_upstream(x, y, dz):
    return y.expand_as(dz).sum_to_size(x.shape), x.expand_as(dz).sum_to_size(y.shape)


def _multiply_not_summed(x, y, dz):
    return dz * y, dz * x  # the shape of z, not of the inputs


register(
    Exercise(
        "ch03.multiply_backward",
        "multiply_backward(x, y, dz: the shape of z = x * y) -> (dx: x's shape, dy: y's)",
        _multiply_backward,
        _multiply_cases,
        "Upstream × local: dx = dz ⊙ y and dy = dz ⊙ x (each local gradient is the OTHER "
        "input); where an input was broadcast, sum the gradient over the broadcast "
        "dimensions back to its shape (.sum_to_size).",
        (
            Mistake(
                "the local gradients are swapped (dz ⊙ x for dx)", _multiply_swapped
            ),
            Mistake(
                "the upstream gradient dz is left out (only the local gradients)",
                _multiply_no_upstream,
            ),
            Mistake(
                "a broadcast input's gradient is not summed back to its shape",
                _multiply_not_summed,
            ),
        ),
        rtol=1e-9,
        atol=1e-12,
    ),
    Exercise(
        "ch03.softmax_jacobian",
        "softmax_jacobian(z: (C,)) -> (C, C)",
        softmax_jacobian,
        _jacobian_cases,
        "∂p_i/∂z_j = p_i(1[i = j] − p_j), i.e. diag(p) − p pᵀ; each row sums to 0.",
        (
            Mistake(
                "the − p pᵀ term is missing (only diag(p))",
                lambda z: torch.diag(z.softmax(0)),
            ),
        ),
        rtol=1e-6,
        atol=1e-10,
    ),
    Exercise(
        "ch03.cross_entropy_grad",
        "cross_entropy_grad(z: (C,), y: int) -> (C,)",
        cross_entropy_grad,
        _ce_cases,
        "∂J/∂z = softmax(z) − one_hot(y).",
        (
            Mistake(
                "the softmax is forgotten (z − y)",
                lambda z, y: z - torch.eye(z.numel(), dtype=z.dtype)[y],
            ),
        ),
        rtol=1e-6,
        atol=1e-10,
    ),
    Exercise(
        "ch03.affine_gradients",
        'affine_gradients(delta: (m,), W: (m, n), x: (n,)) -> {"W": (m, n), "b": (m,), "x": (n,)}',
        affine_gradients,
        _affine_cases,
        "Shape convention: ∂s/∂W = δ xᵀ (same shape as W), ∂s/∂b = δ, ∂s/∂x = Wᵀ δ.",
        (Mistake("the weight gradient is transposed (x δᵀ)", _affine_transposed),),
    ),
    Exercise(
        "ch03.activation_derivative",
        'activation_derivative(z: Tensor, activation: "tanh" | "sigmoid" | "relu") -> Tensor',
        activation_derivative,
        _activation_cases,
        "tanh' = 1 − tanh², σ' = σ(1 − σ), relu' = 1[z > 0] (0 at z = 0).",
        (
            Mistake(
                "a derivative is misremembered (1 − tanh, σ(1 − σ(−z)) or relu'(0) = 1)",
                _activation_wrong,
            ),
        ),
    ),
)


register_questions(
    Question(
        "ch03.fan_out",
        "For $f(x, y) = xy + y$ at $x = 3$, $y = 2$, what is $\\partial f / \\partial y$?",
        answer=4,
        explanation="y feeds two gates, and the gradients along both paths add: x through "
        "the multiply (3) and 1 through the addition: 3 + 1 = 4.",
        wrong={
            3: "That is only the path through the multiply; y also reaches f directly.",
            1: "That is only the direct path; y also feeds the multiply, whose local "
            "gradient is x = 3.",
        },
    ),
    Question(
        "ch03.sigmoid_gate",
        "A sigmoid gate $h = \\sigma(z)$ outputs $h = 0.25$, and the upstream gradient "
        "$\\partial s / \\partial h$ is 2. What is the downstream gradient "
        "$\\partial s / \\partial z$?",
        answer=2 * 0.25 * 0.75,
        explanation="Upstream × local, and the sigmoid's local gradient is h(1 − h): "
        "2 · 0.25 · 0.75 = 0.375.",
        wrong={
            0.1875: "That is the local gradient alone; multiply it by the upstream 2.",
            0.5: "That multiplies by h, not by the derivative h(1 − h).",
        },
    ),
    Question(
        "ch03.reverse_mode",
        "A scalar loss has a million parameters. Which way gets its whole gradient for the "
        "cost of a few forward passes?",
        answer="a",
        explanation="Reverse mode (backpropagation) sweeps the recorded graph once, from the "
        "one output back to every input: one sweep gives all million partial derivatives.",
        choices={
            "a": "reverse-mode differentiation: one backward sweep",
            "b": "forward-mode differentiation: one forward sweep with derivatives",
            "c": "centred finite differences",
        },
        wrong={
            "b": "A forward sweep carries the derivative with respect to one input (one "
            "direction): a million sweeps for a million parameters.",
            "c": "Two forward passes per parameter, two million in all, and only "
            "approximate: a check, not a way to train.",
        },
    ),
)
