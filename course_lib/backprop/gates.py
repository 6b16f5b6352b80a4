r"""Two gates outside ``Value``'s methods: a fused softmax cross-entropy, and the multiply gate
as an object with ``forward`` and ``backward``. Chapter 3.

CS224N lecture 3: a gate needs only its local gradient; fusing softmax and cross-entropy into
one gate gives the short, stable ∂J/∂z = (p − y)/B. ``MultiplyGate`` is the lecture's
standalone gate, on plain tensors: ``forward`` saves its inputs, ``backward`` uses them.

Shape legend: B batch, C classes, V vocabulary, D width; broadcasting follows torch.
"""

from __future__ import annotations

import torch
from torch import Tensor

from course_lib.backprop.value import Value, _unbroadcast, check_broadcast

__all__ = ["MultiplyGate", "softmax_cross_entropy"]


def softmax_cross_entropy(logits: Value, targets: Tensor) -> Value:
    r"""J = mean_b −log softmax(z_b)_{y_b}, one fused gate: ∂J/∂z = (p − y)/B (lecture 3).

    Stable: log Σ exp is computed as m + log Σ exp(z − m) with m the row maximum.
    logits: (B, C) Value; targets: (B,) class ids. Returns a scalar Value.
    """
    if logits.data.dim() != 2:
        raise ValueError(
            f"softmax_cross_entropy gate: logits must be (B, C); got {logits.shape}"
        )
    y = torch.as_tensor(targets, device=logits.data.device)
    B, C = logits.shape
    if y.shape != (B,) or y.is_floating_point():
        raise ValueError(
            f"softmax_cross_entropy gate: targets must be {B} class ids (B,); got "
            f"{tuple(y.shape)} {y.dtype} for logits {logits.shape}"
        )
    if B and not (0 <= int(y.min()) and int(y.max()) < C):
        raise ValueError(f"softmax_cross_entropy gate: targets must be in 0..{C - 1}")
    z = logits.data  # (B, C)
    log_p = z - z.max(dim=1, keepdim=True).values  # (B, C)
    log_p = log_p - torch.log(torch.exp(log_p).sum(dim=1, keepdim=True))  # (B, C)
    loss = -log_p[torch.arange(B), y].mean()  # ()

    def backward(g, need, ops):
        p_minus_y = torch.exp(log_p)  # (B, C)
        p_minus_y[torch.arange(B), y] -= 1
        ops.mul(B * C)
        return (p_minus_y * (g / B),)  # (B, C)  (p − y)/B · upstream

    return Value._make(loss, (logits,), "softmax_cross_entropy", backward)


class MultiplyGate:
    """The lecture's multiply gate: ``forward`` keeps its inputs for ``backward``.

    z = x ⊙ y; given the upstream dz = ∂s/∂z, returns (dx, dy) = (dz ⊙ y, dz ⊙ x),
    each summed back to its input's shape when the inputs were broadcast (lecture 3).
    """

    def __init__(self) -> None:
        self.x: Tensor | None = None
        self.y: Tensor | None = None

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        _check_broadcast(x, y)
        self.x, self.y = x, y  # saved for backward
        return x * y

    def backward(self, dz: Tensor) -> tuple[Tensor, Tensor]:
        _check_forward_ran(self)
        dx = _unbroadcast(dz * self.y, tuple(self.x.shape))  # local ∂z/∂x = y
        dy = _unbroadcast(dz * self.x, tuple(self.y.shape))  # local ∂z/∂y = x
        return dx, dy


def _check_broadcast(x: Tensor, y: Tensor) -> None:
    check_broadcast(tuple(x.shape), tuple(y.shape), "MultiplyGate's multiply")


def _check_forward_ran(gate: MultiplyGate) -> None:
    if gate.x is None or gate.y is None:
        raise RuntimeError("MultiplyGate.backward() needs forward() to run first")
