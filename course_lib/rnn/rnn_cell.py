r"""The vanilla (Elman) RNN from scratch: one cell and a runner over time. Chapter 5.

CS224N lecture 5 writes the recurrence for a column vector,
h^{(t)} = σ(W_h h^{(t-1)} + W_e e^{(t)} + b_1); *Sequence Models* writes
a^{<t>} = g(W_aa a^{<t-1>} + W_ax x^{<t>} + b_a); the university course (d2l.ai §9.4)
writes a batch of row vectors, H_t = φ(X_t W_xh + H_{t-1} W_hh + b_h). They are one
computation: W_xh = W_eᵀ = W_axᵀ and W_hh = W_hᵀ = W_aaᵀ. This module uses the last
(row-vector, batch first) form, so a batch is one matrix product per step; the same
parameters are used at every time step (parameter sharing across time).

``torch.nn.RNN`` computes h_t = tanh(x_t W_ihᵀ + b_ih + h_{t-1} W_hhᵀ + b_hh): its two
biases add up to our b_h. :func:`copy_from_torch` copies its weights in.

Shape legend: B batch, T time, D input width, H hidden width.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

NONLINEARITIES = ("tanh", "relu")


class RNNCell(nn.Module):
    r"""One step H_t = φ(X_t W_xh + H_{t-1} W_hh + b_h) (d2l.ai eq. 9.4.5). Chapter 5.

    input_size D, hidden_size H; nonlinearity ``"tanh"`` or ``"relu"``.
    Parameters: W_xh (D, H), W_hh (H, H), b_h (H,), initialised U(-1/√H, 1/√H) as
    ``torch.nn.RNN``.
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        nonlinearity: str = "tanh",
        *,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if nonlinearity not in NONLINEARITIES:
            raise ValueError(
                f"nonlinearity must be one of {NONLINEARITIES}, got {nonlinearity!r}"
            )
        self.input_size, self.hidden_size = input_size, hidden_size
        self.nonlinearity = nonlinearity
        kw = dict(device=device, dtype=dtype)
        bound = 1 / math.sqrt(hidden_size)
        self.W_xh = nn.Parameter(
            torch.empty(input_size, hidden_size, **kw).uniform_(-bound, bound)
        )
        self.W_hh = nn.Parameter(
            torch.empty(hidden_size, hidden_size, **kw).uniform_(-bound, bound)
        )
        self.b_h = nn.Parameter(torch.empty(hidden_size, **kw).uniform_(-bound, bound))

    def forward(self, x: Tensor, h: Tensor) -> Tensor:
        """x: (B, D), h: (B, H) -> the next hidden state (B, H)."""
        z = x @ self.W_xh + h @ self.W_hh + self.b_h  # (B, H)
        return torch.tanh(z) if self.nonlinearity == "tanh" else torch.relu(z)  # (B, H)


class RNN(nn.Module):
    r"""A vanilla RNN run over a whole sequence, batch first, one layer. Chapter 5.

    The same :class:`RNNCell` (the same W_xh, W_hh, b_h) is applied at every step.
    ``forward(x, h0)`` returns every hidden state (B, T, H) and the last one (B, H), like
    ``torch.nn.RNN(batch_first=True)`` (whose last state has an extra layer axis).
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        nonlinearity: str = "tanh",
        *,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.cell = RNNCell(
            input_size, hidden_size, nonlinearity, device=device, dtype=dtype
        )
        self.hidden_size = hidden_size

    def forward(self, x: Tensor, h0: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """x: (B, T, D); h0: (B, H) or None for zeros. Returns (B, T, H) and (B, H)."""
        if x.dim() != 3 or x.size(-1) != self.cell.input_size:
            raise ValueError(
                f"x must be (B, T, D={self.cell.input_size}), got {tuple(x.shape)}"
            )
        B, T, _ = x.shape
        if h0 is None:
            h = x.new_zeros(B, self.hidden_size)  # (B, H)
        elif h0.shape != (B, self.hidden_size):
            raise ValueError(
                f"h0 must be (B={B}, H={self.hidden_size}), got {tuple(h0.shape)}"
            )
        else:
            h = h0  # (B, H)
        states = []
        for t in range(T):
            h = self.cell(x[:, t], h)  # (B, H)
            states.append(h)
        return torch.stack(states, dim=1), h  # (B, T, H), (B, H)


def copy_from_torch(ours: RNN, theirs: nn.RNN) -> RNN:
    """Copy a one-layer ``torch.nn.RNN``'s weights into ``ours`` (W_xh = W_ihᵀ, b_h = b_ih + b_hh).

    Returns ``ours``. Raises ValueError when sizes, layers or nonlinearity differ.
    """
    if not isinstance(theirs, nn.RNN):
        raise TypeError(f"theirs must be a torch.nn.RNN, got {type(theirs).__name__}")
    if theirs.num_layers != 1 or theirs.bidirectional:
        raise ValueError("only a one-layer, one-direction torch.nn.RNN can be copied")
    cell = ours.cell
    if (theirs.input_size, theirs.hidden_size, theirs.nonlinearity) != (
        cell.input_size,
        cell.hidden_size,
        cell.nonlinearity,
    ):
        raise ValueError(
            f"sizes/nonlinearity differ: ours {(cell.input_size, cell.hidden_size, cell.nonlinearity)}, "
            f"torch {(theirs.input_size, theirs.hidden_size, theirs.nonlinearity)}"
        )
    with torch.no_grad():
        cell.W_xh.copy_(theirs.weight_ih_l0.T)
        cell.W_hh.copy_(theirs.weight_hh_l0.T)
        bias = torch.zeros_like(cell.b_h)
        if theirs.bias:
            bias = theirs.bias_ih_l0 + theirs.bias_hh_l0
        cell.b_h.copy_(bias)
    return ours
