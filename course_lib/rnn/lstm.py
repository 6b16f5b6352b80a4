r"""The LSTM cell from scratch (Hochreiter & Schmidhuber, 1997; forget gate: Gers et al., 2000).

Chapter 6 (CS224N lecture 6). One time step, in the lecture's notation (σ the logistic sigmoid,
⊙ the elementwise product):

    I_t = σ(W_ii x_t + b_ii + W_hi h_{t−1} + b_hi)          input gate
    F_t = σ(W_if x_t + b_if + W_hf h_{t−1} + b_hf)          forget gate
    C̃_t = tanh(W_ig x_t + b_ig + W_hg h_{t−1} + b_hg)      candidate cell content
    O_t = σ(W_io x_t + b_io + W_ho h_{t−1} + b_ho)          output gate
    C_t = F_t ⊙ C_{t−1} + I_t ⊙ C̃_t                        cell state (additive path)
    H_t = O_t ⊙ tanh(C_t)                                    hidden state

The parameters are laid out as ``torch.nn.LSTM``'s (rows of ``weight_ih``: i, f, g, o), so the
weights of a torch module copy over unchanged (``course_lib.rnn.stacked.load_torch_weights``) and
the two give the same numbers. Because C_t depends on C_{t−1} through a sum,
∂C_t/∂C_{t−1} = diag(F_t) (plus terms through the gates): with F_t = 1 and I_t = 0 the cell
copies its content unchanged for any number of steps, and so does the gradient.

Every cell of ``course_lib.rnn`` has the same small interface, which the wrappers of
``course_lib.rnn.stacked`` rely on: ``input_size``, ``hidden_size``, ``state_size`` (tensors in
the state), ``init_state(batch, device=, dtype=)`` and ``forward(x, state) -> (h, state)`` with
the state a tuple of (B, H) tensors; ``gates(x, state)`` returns the gate values for plots.

Shape legend: B batch, D input width, H hidden width.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

__all__ = ["LSTMCell", "check_step_inputs"]


def check_step_inputs(cell: nn.Module, x: Tensor, state: tuple[Tensor, ...]) -> None:
    """Raise ValueError/TypeError unless x is (B, D) and the state holds (B, H) tensors."""
    if not isinstance(x, Tensor):
        raise TypeError(f"x must be a tensor (B, D); got {type(x).__name__}")
    if x.dim() != 2 or x.size(1) != cell.input_size:
        raise ValueError(
            f"x must have shape (B, {cell.input_size}) = (batch, input_size); "
            f"got {tuple(x.shape)}"
        )
    if not isinstance(state, tuple) or len(state) != cell.state_size:
        raise TypeError(
            f"{type(cell).__name__} needs a state tuple of {cell.state_size} tensor(s) "
            f"(B, H); got {type(state).__name__}"
            + (f" of length {len(state)}" if isinstance(state, tuple) else "")
        )
    for s in state:
        if s.shape != (x.size(0), cell.hidden_size):
            raise ValueError(
                f"state tensors must have shape (B, H) = ({x.size(0)}, "
                f"{cell.hidden_size}) to match x; got {tuple(s.shape)}"
            )


class LSTMCell(nn.Module):
    """One LSTM step (lecture 6): C_t = F_t ⊙ C_{t−1} + I_t ⊙ C̃_t, H_t = O_t ⊙ tanh(C_t).

    Parameters as in ``torch.nn.LSTM`` (and initialised the same way, U(−1/√H, 1/√H)):
    ``weight_ih`` (4H, D), ``weight_hh`` (4H, H), ``bias_ih`` and ``bias_hh`` (4H,), gate
    blocks in the order i, f, g, o. Chapter 6.
    """

    state_size = 2  # (h, c)

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        *,
        bias: bool = True,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        if not (isinstance(input_size, int) and isinstance(hidden_size, int)):
            raise TypeError("input_size and hidden_size must be ints")
        if input_size < 1 or hidden_size < 1:
            raise ValueError(
                f"input_size and hidden_size must be >= 1; got {input_size}, {hidden_size}"
            )
        self.input_size, self.hidden_size = input_size, hidden_size
        kw = {"device": device, "dtype": dtype}
        H = hidden_size
        self.weight_ih = nn.Parameter(torch.empty(4 * H, input_size, **kw))
        self.weight_hh = nn.Parameter(torch.empty(4 * H, H, **kw))
        self.bias_ih = nn.Parameter(torch.empty(4 * H, **kw)) if bias else None
        self.bias_hh = nn.Parameter(torch.empty(4 * H, **kw)) if bias else None
        bound = 1.0 / math.sqrt(H)
        for p in self.parameters():
            nn.init.uniform_(p, -bound, bound)

    def init_state(
        self,
        batch: int,
        *,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> tuple[Tensor, Tensor]:
        """The zero state (h_0, c_0), each (B, H)."""
        dtype = dtype or self.weight_hh.dtype
        zeros = torch.zeros(batch, self.hidden_size, device=device, dtype=dtype)
        return zeros, zeros.clone()  # (B, H), (B, H)

    def gates(self, x: Tensor, state: tuple[Tensor, Tensor]) -> dict[str, Tensor]:
        """The gate values of one step: ``input``, ``forget``, ``candidate``, ``output``.

        x: (B, D); state: (h_{t−1}, c_{t−1}), each (B, H). Every value is (B, H).
        """
        check_step_inputs(self, x, state)
        h = state[0]
        z = x @ self.weight_ih.T + h @ self.weight_hh.T  # (B, 4H)
        if self.bias_ih is not None:
            z = z + self.bias_ih + self.bias_hh  # (B, 4H)
        i, f, g, o = z.chunk(4, dim=1)  # 4 × (B, H)
        return {
            "input": torch.sigmoid(i),  # (B, H)  I_t
            "forget": torch.sigmoid(f),  # (B, H)  F_t
            "candidate": torch.tanh(g),  # (B, H)  C̃_t
            "output": torch.sigmoid(o),  # (B, H)  O_t
        }

    def forward(
        self, x: Tensor, state: tuple[Tensor, Tensor]
    ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """One step. x: (B, D); state (h_{t−1}, c_{t−1}). Returns H_t (B, H) and (H_t, C_t)."""
        g = self.gates(x, state)
        c = g["forget"] * state[1] + g["input"] * g["candidate"]  # (B, H)  C_t
        h = g["output"] * torch.tanh(c)  # (B, H)  H_t
        return h, (h, c)

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}"
