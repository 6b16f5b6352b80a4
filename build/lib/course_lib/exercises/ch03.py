"""Chapter 3 exercises (backpropagation): Jacobians and gradients by hand.

References: ``course_lib.matrix_calculus`` (``softmax_jacobian``, ``cross_entropy_grad``,
``affine_gradients``, ``activation_derivative``).
"""

from __future__ import annotations

import torch

from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.matrix_calculus import (
    activation_derivative,
    affine_gradients,
    cross_entropy_grad,
    softmax_jacobian,
)


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


register(
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
