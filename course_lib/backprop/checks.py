r"""Checking and costing backprop: centred differences, and one pass per parameter vs one.
Chapter 3.

CS224N lecture 3: the gradient check compares backprop with (f(θ + ε) − f(θ − ε)) / 2ε, entry
by entry (and shows why it needs float64); ``separate_vs_shared_cost`` counts the multiplies
saved by computing every parameter's gradient in one backward pass, re-using each δ.

Shape legend: B batch, C classes, V vocabulary, D width; broadcasting follows torch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

from course_lib.backprop.engine import OpCounter, grad, zero_grad
from course_lib.backprop.value import Value
from course_lib.runtime import run_seed

__all__ = [
    "BackwardCost",
    "gradient_check",
    "gradient_check_precision",
    "separate_vs_shared_cost",
]


def gradient_check(
    f: Callable[[], Value],
    params: Sequence[Value],
    eps: float = 1e-6,
    tiny: float = 1e-8,
) -> float:
    r"""The largest relative error between backprop and centred differences, over all entries.

    n = (f(θ + ε) − f(θ − ε)) / 2ε per entry (error O(ε²)); relative error
    |a − n| / max(|a|, |n|, tiny). About 1e-7 or less in float64 means the gradient is right.
    f: builds the scalar loss from ``params`` afresh each call. ``params``' data is restored.
    """
    if not eps > 0:
        raise ValueError(f"eps must be positive; got {eps}")
    zero_grad(params)
    loss = f()
    if loss.data.numel() != 1:
        raise ValueError(f"f() must return a scalar Value; got shape {loss.shape}")
    loss.backward()
    worst = 0.0
    for p in params:
        a = (p.grad if p.grad is not None else torch.zeros_like(p.data)).reshape(-1)
        flat = p.data.view(-1)
        for j in range(flat.numel()):
            old = flat[j].item()
            flat[j] = old + eps
            f_plus = f().item()
            flat[j] = old - eps
            f_minus = f().item()
            flat[j] = old
            n = (f_plus - f_minus) / (2 * eps)
            err = abs(a[j].item() - n) / max(abs(a[j].item()), abs(n), tiny)
            worst = max(worst, err)
    return worst


def gradient_check_precision(
    eps_values: Sequence[float] = tuple(10.0**-k for k in range(1, 11)),
    *,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> dict[str, list[float]]:
    """Gradient-check error against ε in float32 and float64, for a small tanh layer.

    The truncation error shrinks like ε², the rounding error grows like u/ε (u ≈ 6e-8 in float32,
    1e-16 in float64): float32 never gets close. Returns ``{"eps", "float32", "float64"}`` lists.
    """
    gen = torch.Generator().manual_seed(run_seed(seed))
    base = [
        torch.randn(shape, generator=gen, dtype=torch.float64)
        for shape in ((5, 4), (4,), (5,))
    ]
    out: dict[str, list[float]] = {"eps": [float(e) for e in eps_values]}
    for dtype in (torch.float32, torch.float64):
        W, x, u = (
            Value(t.to(device=device, dtype=dtype), requires_grad=True) for t in base
        )

        def loss(W=W, x=x, u=u) -> Value:
            return ((W @ x).tanh() * u).sum()  # ()  s = uᵀ tanh(Wx)

        out[str(dtype).removeprefix("torch.")] = [
            gradient_check(loss, [W, x, u], eps) for eps in eps_values
        ]
    return out


@dataclass(frozen=True)
class BackwardCost:
    """Multiplies for every parameter's gradient: one pass per parameter vs one shared pass."""

    per_parameter: dict[str, int]  # a separate pass for each parameter alone
    separate: int  # their sum
    shared: int  # one pass for all parameters
    gate_calls_separate: int
    gate_calls_shared: int

    @property
    def ratio(self) -> float:
        return self.separate / self.shared


def separate_vs_shared_cost(
    widths: Sequence[int] = (10, 20, 20, 20),
    *,
    activation: str = "tanh",
    seed: int = 0,
    device: torch.device | str | None = None,
) -> BackwardCost:
    r"""Count why ∂s/∂W and ∂s/∂b are computed in one pass (lecture 3, "re-using δ").

    The network is s = uᵀ h_L, h_l = f(W_l h_{l-1} + b_l), h_0 = x ∈ ℝ^{widths[0]}. One pass per
    parameter re-derives the shared error signals δ_l = ∂s/∂z_l (and every upstream Wᵀδ) each
    time; one backward pass computes each δ_l once. Both give the same gradients (checked).
    """
    if len(widths) < 2 or any(int(w) < 1 for w in widths):
        raise ValueError(
            f"widths needs >= 2 positive sizes (input, layers...); got {widths}"
        )
    gen = torch.Generator().manual_seed(run_seed(seed))

    def leaf(name: str, *shape: int) -> Value:
        data = (
            torch.randn(*shape, generator=gen, dtype=torch.float64)
            / max(1, shape[-1]) ** 0.5
        )
        return Value(data.to(device), requires_grad=True, name=name)

    x = Value(torch.randn(widths[0], generator=gen, dtype=torch.float64).to(device))
    params, h = [], x
    for layer, (n, m) in enumerate(zip(widths[:-1], widths[1:]), start=1):
        W, b = leaf(f"W{layer}", m, n), leaf(f"b{layer}", m)
        params += [W, b]
        h = getattr(W @ h + b, activation)()  # (m,)  h_l = f(W_l h_{l-1} + b_l)
    u = leaf("u", widths[-1])
    s = (u * h).sum()  # ()  s = uᵀ h_L
    params.append(u)
    per, gates = {}, 0
    separate_grads = []
    for p in params:
        c = OpCounter()
        separate_grads += grad(s, [p], retain_graph=True, counter=c)
        per[p.name], gates = c.multiplies, gates + c.gate_calls
    shared = OpCounter()
    for g1, g2 in zip(separate_grads, grad(s, params, counter=shared)):
        assert torch.allclose(g1, g2)
    return BackwardCost(
        per, sum(per.values()), shared.multiplies, gates, shared.gate_calls
    )
