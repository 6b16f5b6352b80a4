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

:class:`RNNCell` has the cell interface of ``course_lib.rnn.cell`` (the state is the
1-tuple ``(h,)``), so Chapter 6's ``course_lib.rnn.stacked.RecurrentNet`` runs the same
cell deep and bidirectional (``cell="rnn"``) and ``gradient_through_time`` differentiates it.

Shape legend: B batch, T time, D input width, H hidden width.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from course_lib.rnn.cell import RecurrentCell, check_step_inputs, torch_parameters

__all__ = ["NONLINEARITIES", "RNN", "RNNCell", "copy_from_torch"]

NONLINEARITIES = ("tanh", "relu")


class RNNCell(RecurrentCell):
    r"""One step H_t = φ(X_t W_xh + H_{t-1} W_hh + b_h) (d2l.ai eq. 9.4.5). Chapters 5, 6.

    input_size D, hidden_size H; nonlinearity ``"tanh"`` or ``"relu"``; ``bias=False``
    drops b_h. Parameters: W_xh (D, H), W_hh (H, H), b_h (H,), initialised
    U(-1/√H, 1/√H) as ``torch.nn.RNN``. ``forward(x, (h,))`` returns h_t and ``(h_t,)``.
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        nonlinearity: str = "tanh",
        *,
        bias: bool = True,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__(input_size, hidden_size)
        if nonlinearity not in NONLINEARITIES:
            raise ValueError(
                f"nonlinearity must be one of {NONLINEARITIES}, got {nonlinearity!r}"
            )
        self.nonlinearity = nonlinearity
        kw = {"device": device, "dtype": dtype}
        self.W_xh = nn.Parameter(torch.empty(input_size, hidden_size, **kw))
        self.W_hh = nn.Parameter(torch.empty(hidden_size, hidden_size, **kw))
        self.b_h = nn.Parameter(torch.empty(hidden_size, **kw)) if bias else None
        self.reset_parameters()

    def forward(self, x: Tensor, state: tuple[Tensor]) -> tuple[Tensor, tuple[Tensor]]:
        """x: (B, D), state ``(H_{t-1},)`` (B, H) -> H_t (B, H), next state ``(H_t,)``.

        H_t = φ(X_t W_xh + H_{t-1} W_hh + b_h), d2l.ai eq. 9.4.5.
        """
        check_step_inputs(self, x, state)
        z = x @ self.W_xh + state[0] @ self.W_hh  # (B, H)
        if self.b_h is not None:
            z = z + self.b_h  # (B, H)
        h = torch.tanh(z) if self.nonlinearity == "tanh" else torch.relu(z)  # (B, H)
        return h, (h,)

    def load_torch_parameters(self, params: dict[str, Tensor | None]) -> RNNCell:
        """Copy one layer of ``torch.nn.RNN`` (``course_lib.rnn.cell.torch_parameters``) in:
        W_xh = W_ihᵀ, W_hh = W_hhᵀ, b_h = b_ih + b_hh (0 when torch has no biases)."""
        if self.b_h is None and params["bias_ih"] is not None:
            raise ValueError("one has biases and the other not")
        with torch.no_grad():
            self.W_xh.copy_(params["weight_ih"].T)
            self.W_hh.copy_(params["weight_hh"].T)
            if self.b_h is not None:
                bias = torch.zeros_like(self.b_h)
                if params["bias_ih"] is not None:
                    bias = params["bias_ih"] + params["bias_hh"]
                self.b_h.copy_(bias)
        return self

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, nonlinearity={self.nonlinearity!r}"


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

    def _check_inputs(self, x: Tensor, h0: Tensor | None) -> None:
        """Raise ValueError unless x is (B, T, D) and h0 is None or (B, H)."""
        if x.dim() != 3 or x.size(-1) != self.cell.input_size:
            raise ValueError(
                f"x must be (B, T, D={self.cell.input_size}), got {tuple(x.shape)}"
            )
        if h0 is not None and h0.shape != (x.size(0), self.hidden_size):
            raise ValueError(
                f"h0 must be (B={x.size(0)}, H={self.hidden_size}), "
                f"got {tuple(h0.shape)}"
            )

    def forward(self, x: Tensor, h0: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """x: (B, T, D); h0: (B, H) or None for zeros. Returns (B, T, H) and (B, H)."""
        self._check_inputs(x, h0)
        B, T, _ = x.shape
        h = x.new_zeros(B, self.hidden_size) if h0 is None else h0  # (B, H)
        states = []
        for t in range(T):
            h, _ = self.cell(x[:, t], (h,))  # (B, H)
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
    ours.cell.load_torch_parameters(torch_parameters(theirs))
    return ours
