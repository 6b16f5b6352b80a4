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

The lecture notes write the same step with row vectors, gate by gate: for a batch
X_t ∈ R^{n×d} and H_{t−1} ∈ R^{n×h}, F_t = σ(X_t W_xf + H_{t−1} W_hf + b_f) with
W_xf ∈ R^{d×h}, W_hf ∈ R^{h×h}, b_f ∈ R^{1×h}, and likewise for I_t (``i``), O_t (``o``)
and the candidate C̃_t (``c``: W_xc, W_hc, b_c). :func:`lecture_weights` cuts those
blocks out of torch's packed layout (W_x· is a block of ``weight_ih`` transposed).

Every cell of ``course_lib.rnn`` has the small interface of ``course_lib.rnn.cell``, which
the wrappers of ``course_lib.rnn.stacked`` rely on; ``gates(x, state)`` returns the gate values
for plots.

Shape legend: B batch, D input width (the notes' d), H hidden width (h).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from course_lib.rnn.cell import (
    TORCH_PARAMETERS,
    TorchLayoutCell,
    check_step_inputs,
    torch_parameters,
)

__all__ = ["LECTURE_GATES", "LSTMCell", "lecture_weights"]

# The lecture's gate letters, in the order of its table, with the row block of torch's
# packed weights (torch stacks i, f, g, o; its g is the candidate cell C̃).
LECTURE_GATES: dict[str, tuple[str, int]] = {
    "f": ("forget gate", 1),
    "i": ("input gate", 0),
    "o": ("output gate", 3),
    "c": ("candidate cell", 2),
}


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
        """One step. x: (B, D); state (h_{t−1}, c_{t−1}). Returns H_t (B, H), (H_t, C_t)."""
        g = self.gates(x, state)
        c = g["forget"] * state[1] + g["input"] * g["candidate"]  # (B, H)  C_t
        h = g["output"] * torch.tanh(c)  # (B, H)  H_t
        return h, (h, c)


def lecture_weights(
    lstm: LSTMCell | nn.LSTM, layer: int = 0
) -> dict[str, dict[str, Tensor]]:
    r"""The notes' per-gate weights, cut out of torch's packed layout. Chapter 6.

    For each gate · of :data:`LECTURE_GATES` (``"f"``, ``"i"``, ``"o"``, ``"c"``), the
    pre-activation is X_t W_x· + H_{t−1} W_h· + b_· (row vectors) with
    ``W_x`` = W_x· (D, H), a block of ``weight_ih`` (4H, D) transposed; ``W_h`` = W_h·
    (H, H), from ``weight_hh`` (4H, H); ``b`` = b_· (1, H), ``bias_ih + bias_hh`` (zero
    without biases). lstm: our :class:`LSTMCell` or a ``torch.nn.LSTM`` (its ``layer``,
    forward direction). The tensors are views: they follow the module's weights.
    """
    if isinstance(lstm, nn.LSTM):
        if lstm.proj_size:
            raise ValueError(
                "an LSTM with proj_size has no (H, H) W_h·; use proj_size=0"
            )
        if not 0 <= layer < lstm.num_layers:
            raise ValueError(f"layer must be in 0..{lstm.num_layers - 1}; got {layer}")
        params = torch_parameters(lstm, layer)
    elif isinstance(lstm, LSTMCell):
        params = {name: getattr(lstm, name) for name in TORCH_PARAMETERS}
    else:
        raise TypeError(
            f"lstm must be a course_lib LSTMCell or a torch.nn.LSTM; got "
            f"{type(lstm).__name__}"
        )
    H = params["weight_hh"].size(1)
    weights = {}
    for gate, (_, block) in LECTURE_GATES.items():
        rows = slice(block * H, (block + 1) * H)
        if params["bias_ih"] is None:
            b = params["weight_hh"].new_zeros(H)  # (H,)
        else:
            b = params["bias_ih"][rows] + params["bias_hh"][rows]  # (H,)
        weights[gate] = {
            "W_x": params["weight_ih"][rows].T,  # (D, H)
            "W_h": params["weight_hh"][rows].T,  # (H, H)
            "b": b[None],  # (1, H)
        }
    return weights
