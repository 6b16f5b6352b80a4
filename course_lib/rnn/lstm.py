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

Every cell of ``course_lib.rnn`` has the small interface of ``course_lib.rnn.cell``, which
the wrappers of ``course_lib.rnn.stacked`` rely on; ``gates(x, state)`` returns the gate values
for plots.

Shape legend: B batch, D input width, H hidden width.
"""

from __future__ import annotations

import torch
from torch import Tensor

from course_lib.rnn.cell import TorchLayoutCell, check_step_inputs

__all__ = ["LSTMCell"]


class LSTMCell(TorchLayoutCell):
    """One LSTM step (lecture 6): C_t = F_t ⊙ C_{t−1} + I_t ⊙ C̃_t, H_t = O_t ⊙ tanh(C_t).

    ``LSTMCell(input_size, hidden_size, *, bias=True, device=None, dtype=None)``.
    Parameters as in ``torch.nn.LSTM`` (and initialised the same way, U(−1/√H, 1/√H)):
    ``weight_ih`` (4H, D), ``weight_hh`` (4H, H), ``bias_ih`` and ``bias_hh`` (4H,), gate
    blocks in the order i, f, g, o. Chapter 6.
    """

    state_size = 2  # (h, c)
    n_blocks = 4  # i, f, g, o

    def gates(self, x: Tensor, state: tuple[Tensor, Tensor]) -> dict[str, Tensor]:
        """The gate values of one step: ``input``, ``forget``, ``candidate``, ``output``.

        x: (B, D); state: (h_{t−1}, c_{t−1}), each (B, H). Every value is (B, H).
        """
        check_step_inputs(self, x, state)
        gi, gh = self.projections(x, state[0])  # (B, 4H), (B, 4H)
        i, f, g, o = (gi + gh).chunk(4, dim=1)  # 4 × (B, H)
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
