r"""Backpropagation through time by hand: ∂L/∂W_h of a tanh RNN. Chapter 5.

CS224N lecture 5 (and d2l.ai §9.7): with h_t = tanh(z_t), z_t = W_h h_{t−1} + W_e x_t + b
and a loss L = Σ_t L_t, the shared W_h is used at every step, so its gradient is a sum over
steps and, inside it, over every earlier step the loss reaches back to:

    ∂L/∂W_h = Σ_t Σ_{k≤t} [∂L_t/∂h_t · ∏_{j=k+1}^{t} ∂h_j/∂h_{j−1}] · ∂⁺h_k/∂W_h,
    ∂h_j/∂h_{j−1} = diag(1 − h_j²) W_h,

where ∂⁺h_k/∂W_h holds h_{k−1} fixed. Computed from the last step backwards, the inner sums
collapse into one recursion for δ_t = ∂L/∂h_t, the total gradient at h_t,

    δ_T = g_T,   δ_t = g_t + W_hᵀ (δ_{t+1} ⊙ (1 − h_{t+1}²)),   g_t = ∂L_t/∂h_t,
    ∂L/∂W_h = Σ_t (δ_t ⊙ (1 − h_t²)) h_{t−1}ᵀ,

which is T steps instead of T² products. The column-vector form of the lecture
(``course_lib.rnn.rnn_cell`` keeps the row form, whose W_hh is W_hᵀ).

Shape legend: T time, H hidden width.
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["bptt_grad_W_h"]


def _check_bptt_inputs(W_h: Tensor, hs: Tensor, h0: Tensor, direct: Tensor) -> None:
    """bptt_grad_W_h's inputs: W_h (H, H), hs and direct (T, H), h0 (H,)."""
    H = h0.size(-1) if h0.dim() == 1 else -1
    if W_h.shape != (H, H) or hs.dim() != 2 or hs.shape != direct.shape:
        raise ValueError(
            "need W_h (H, H), hs (T, H), h0 (H,) and direct (T, H); got "
            f"{tuple(W_h.shape)}, {tuple(hs.shape)}, {tuple(h0.shape)}, "
            f"{tuple(direct.shape)}"
        )
    if hs.size(1) != H or hs.size(0) < 1:
        raise ValueError(f"hs must be (T, {H}) with T >= 1; got {tuple(hs.shape)}")


def bptt_grad_W_h(W_h: Tensor, hs: Tensor, h0: Tensor, direct: Tensor) -> Tensor:
    """∂L/∂W_h of the tanh RNN h_t = tanh(W_h h_{t−1} + W_e x_t + b), L = Σ_t L_t.

    hs: (T, H) the states h_1..h_T of one sequence; h0: (H,) the state before it;
    direct: (T, H) g_t = ∂L_t/∂h_t, what each step's own loss sends to its state.
    δ_t = g_t + W_hᵀ (δ_{t+1} ⊙ (1 − h_{t+1}²)), the total gradient at h_t;
    ∂L/∂W_h = Σ_t (δ_t ⊙ (1 − h_t²)) h_{t−1}ᵀ.
    """
    _check_bptt_inputs(W_h, hs, h0, direct)
    prev = torch.cat([h0[None], hs[:-1]])  # (T, H)  h_{t−1} for t = 1..T
    grad = torch.zeros_like(W_h)  # (H, H)
    back = torch.zeros_like(h0)  # (H,)  what h_{t+1} sends back to h_t
    for t in reversed(range(hs.size(0))):
        delta = direct[t] + back  # (H,)  δ_t = ∂L/∂h_t
        a = delta * (1 - hs[t] ** 2)  # (H,)  ∂L/∂z_t, through tanh'
        grad += torch.outer(a, prev[t])  # (H, H)  this step's use of W_h
        back = W_h.T @ a  # (H,)  on to h_{t−1}
    return grad
