r"""The GRU from scratch: the full cell (Cho et al., 2014) and the simplified one of *Sequence
Models* (Ng, deeplearning.ai). Chapter 6 (CS224N lecture 6).

Full GRU, in ``torch.nn.GRU``'s parameterisation (rows of ``weight_ih``: r, z, n):

    r_t = σ(W_ir x_t + b_ir + W_hr h_{t−1} + b_hr)                    reset gate
    z_t = σ(W_iz x_t + b_iz + W_hz h_{t−1} + b_hz)                    update gate
    h̃_t = tanh(W_in x_t + b_in + r_t ⊙ (W_hn h_{t−1} + b_hn))        candidate
    h_t = (1 − z_t) ⊙ h̃_t + z_t ⊙ h_{t−1}

The lecture writes u_t = 1 − z_t ("how much to update": h_t = (1 − u_t) ⊙ h_{t−1} + u_t ⊙ h̃_t)
and puts the reset gate before the matrix product, h̃_t = tanh(W_h (r_t ⊙ h_{t−1}) + U_h x_t + b),
as Cho et al. did. torch (and cuDNN) apply it after the product, which lets the product of all
three gates be one matrix multiply; ``reset_after=False`` gives the lecture's form.

Simplified GRU (*Sequence Models*, week 1), one gate, the memory cell c = the hidden state:

    Γ_u = σ(W_u [c_{t−1}, x_t] + b_u)
    c̃_t = tanh(W_c [c_{t−1}, x_t] + b_c)
    c_t = Γ_u ⊙ c̃_t + (1 − Γ_u) ⊙ c_{t−1}

Both follow the cell interface of ``course_lib.rnn.cell`` (state = a 1-tuple ``(h,)``).
Shape legend: B batch, D input width, H hidden width.
"""

from __future__ import annotations

import torch
from torch import Tensor

from course_lib.rnn.cell import TorchLayoutCell, check_step_inputs

__all__ = ["GRUCell", "SimplifiedGRUCell"]


class _GatedCell(TorchLayoutCell):
    """A one-state cell that mixes h_{t−1} and a candidate by a ``keep`` gate (both GRUs)."""

    n_blocks = 3

    def forward(self, x: Tensor, state: tuple[Tensor]) -> tuple[Tensor, tuple[Tensor]]:
        """One step. x: (B, D); state ``(h_{t−1},)``. Returns h_t (B, H) and ``(h_t,)``."""
        g = self.gates(x, state)
        h = g["keep"] * state[0] + (1 - g["keep"]) * g["candidate"]  # (B, H)
        return h, (h,)


class GRUCell(_GatedCell):
    """One GRU step (Cho et al., 2014): h_t = (1 − z_t) ⊙ h̃_t + z_t ⊙ h_{t−1}. Chapter 6.

    Parameters as in ``torch.nn.GRU``: ``weight_ih`` (3H, D), ``weight_hh`` (3H, H), biases
    (3H,), gate blocks r, z, n. reset_after: True (torch's form) applies r_t to
    W_hn h_{t−1} + b_hn; False (the lecture's and Cho et al.'s) to h_{t−1} before W_hn.
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        *,
        bias: bool = True,
        reset_after: bool = True,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias=bias, device=device, dtype=dtype)
        self.reset_after = bool(reset_after)

    def gates(self, x: Tensor, state: tuple[Tensor]) -> dict[str, Tensor]:
        """``reset`` r_t, ``update`` u_t = 1 − z_t (the lecture's), ``keep`` z_t and
        ``candidate`` h̃_t, each (B, H). x: (B, D); state ``(h_{t−1},)``."""
        check_step_inputs(self, x, state)
        h = state[0]
        H = self.hidden_size
        gi, gh = self.projections(x, h)  # (B, 3H), (B, 3H)
        r = torch.sigmoid(gi[:, :H] + gh[:, :H])  # (B, H)
        z = torch.sigmoid(gi[:, H : 2 * H] + gh[:, H : 2 * H])  # (B, H)
        if self.reset_after:
            n = torch.tanh(gi[:, 2 * H :] + r * gh[:, 2 * H :])  # (B, H)
        else:
            hn = (r * h) @ self.weight_hh[2 * H :].T  # (B, H)
            if self.bias_hh is not None:
                hn = hn + self.bias_hh[2 * H :]  # (B, H)
            n = torch.tanh(gi[:, 2 * H :] + hn)  # (B, H)
        return {"reset": r, "update": 1 - z, "keep": z, "candidate": n}

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}, reset_after={self.reset_after}"


class SimplifiedGRUCell(_GatedCell):
    """The one-gate GRU of *Sequence Models*: c_t = Γ_u ⊙ c̃_t + (1 − Γ_u) ⊙ c_{t−1}. Ch. 6.

    Γ_u = σ(W_u [c_{t−1}, x_t] + b_u), c̃_t = tanh(W_c [c_{t−1}, x_t] + b_c); the matrix
    [W_u; W_c] acting on [c, x] is stored split as ``weight_hh`` (2H, H) and ``weight_ih``
    (2H, D), blocks u, c (and two biases, like the other cells; their sum is b).
    """

    n_blocks = 2

    def gates(self, x: Tensor, state: tuple[Tensor]) -> dict[str, Tensor]:
        """``update`` Γ_u, ``keep`` 1 − Γ_u and ``candidate`` c̃_t, each (B, H)."""
        check_step_inputs(self, x, state)
        H = self.hidden_size
        gi, gh = self.projections(x, state[0])  # (B, 2H), (B, 2H)
        u = torch.sigmoid(gi[:, :H] + gh[:, :H])  # (B, H)  Γ_u
        c = torch.tanh(gi[:, H:] + gh[:, H:])  # (B, H)  c̃_t
        return {"update": u, "keep": 1 - u, "candidate": c}
