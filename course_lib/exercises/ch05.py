"""Chapter 5 exercises (language models and RNNs): perplexity, batching, an RNN step and
backpropagation through it; and the chapter's questions.

References: ``course_lib.lm`` (``perplexity``, ``batchify``) and ``course_lib.rnn.RNNCell``
(its backward step by autograd).
"""

from __future__ import annotations

import math

import torch

from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.lm.perplexity import perplexity
from course_lib.lm.rnn_lm import batchify
from course_lib.rnn.rnn_cell import RNNCell


def _log_prob_cases(gen):
    cases = []
    for i in range(4):
        p = torch.rand(3 + 2 * i, generator=gen, dtype=torch.float64) * 0.9 + 0.05
        cases.append(Case((p.log().tolist(),), label=f"random {i}"))
    cases.append(
        Case(([math.log(0.25)] * 4,), label="edge: uniform over 4 words (perplexity 4)")
    )
    cases.append(Case(([-1.0, -math.inf],), label="edge: a token of probability 0"))
    return cases


def _batch_cases(gen):
    cases = []
    for i, (L, B) in enumerate([(12, 3), (23, 4), (10, 5), (9, 2)]):
        cases.append(
            Case((torch.randint(0, 50, (L,), generator=gen), B), label=f"random {i}")
        )
    return cases


def _rnn_step(x, h, W_xh, W_hh, b_h):
    cell = RNNCell(W_xh.size(0), W_xh.size(1), dtype=W_xh.dtype)
    with torch.no_grad():
        cell.W_xh.copy_(W_xh)
        cell.W_hh.copy_(W_hh)
        cell.b_h.copy_(b_h)
        return cell(x, (h,))[0]  # (B, H)


def _rnn_cases(gen):
    cases = []
    for i, (B, D, H) in enumerate([(2, 3, 4), (1, 5, 2), (3, 4, 4)]):
        x = torch.randn(B, D, generator=gen, dtype=torch.float64)
        h = torch.randn(B, H, generator=gen, dtype=torch.float64)
        W_xh = torch.randn(D, H, generator=gen, dtype=torch.float64) * 0.5
        W_hh = torch.randn(H, H, generator=gen, dtype=torch.float64) * 0.5
        b_h = torch.randn(H, generator=gen, dtype=torch.float64) * 0.1
        cases.append(
            Case((x, h, W_xh, W_hh, b_h), label=f"random {i} (B={B}, D={D}, H={H})")
        )
    return cases


def _rnn_step_backward(x, h, W_xh, W_hh, b_h, dh):
    """Autograd through the library's cell: the gradients of L, given dh = ∂L/∂H_t."""
    cell = RNNCell(W_xh.size(0), W_xh.size(1), dtype=W_xh.dtype)
    with torch.no_grad():
        cell.W_xh.copy_(W_xh)
        cell.W_hh.copy_(W_hh)
        cell.b_h.copy_(b_h)
    h_prev = h.clone().requires_grad_()  # (B, H)
    with torch.enable_grad():
        h_t, _ = cell(x, (h_prev,))  # (B, H)
        wrt = (h_prev, cell.W_xh, cell.W_hh, cell.b_h)
        return torch.autograd.grad(h_t, wrt, grad_outputs=dh)  # dh_prev, dW_xh, ...


def _backward_cases(gen):
    cases = []
    for case in _rnn_cases(gen):
        B, H = case.args[1].shape
        dh = torch.randn(B, H, generator=gen, dtype=torch.float64)
        cases.append(Case((*case.args, dh), label=case.label))
    return cases


def _backward(dz, x, h, W_hh):
    """The four gradients from ∂L/∂Z_t, as the chapter writes them."""
    return dz @ W_hh.T, x.T @ dz, h.T @ dz, dz.sum(0)


def _no_tanh_derivative(x, h, W_xh, W_hh, b, dh):
    return _backward(dh, x, h, W_hh)


def _derivative_at_h_prev(x, h, W_xh, W_hh, b, dh):
    return _backward(dh * (1 - h**2), x, h, W_hh)


def _w_hh_transposed(x, h, W_xh, W_hh, b, dh):
    dz = dh * (1 - torch.tanh(x @ W_xh + h @ W_hh + b) ** 2)
    dh_prev, dW_xh, dW_hh, db = _backward(dz, x, h, W_hh)
    return dh_prev, dW_xh, dW_hh.T, db


def _h_prev_through_w_hh(x, h, W_xh, W_hh, b, dh):
    dz = dh * (1 - torch.tanh(x @ W_xh + h @ W_hh + b) ** 2)
    dh_prev, dW_xh, dW_hh, db = _backward(dz, x, h, W_hh)
    return dz @ W_hh, dW_xh, dW_hh, db


register(
    Exercise(
        "ch05.perplexity",
        "perplexity(log_probs: list[float]) -> float",
        perplexity,
        _log_prob_cases,
        "exp of the mean negative natural-log probability per token; inf if a token has P = 0.",
        (
            Mistake(
                "the log-probabilities are summed, not averaged",
                lambda lp: math.exp(-sum(lp)),
            ),
            Mistake(
                "2 is raised to the power instead of e",
                lambda lp: 2 ** (-sum(lp) / len(lp)),
            ),
        ),
    ),
    Exercise(
        "ch05.batchify",
        "batchify(ids: (L,), batch_size: int) -> (B, L // B)",
        batchify,
        _batch_cases,
        "Row b is the b-th contiguous slice of the stream; drop the last L mod B tokens.",
        (
            Mistake(
                "the rows interleave the stream (reshape(-1, B).T)",
                lambda ids, B: ids[: len(ids) // B * B].reshape(-1, B).T,
            ),
        ),
    ),
    Exercise(
        "ch05.rnn_step",
        "rnn_step(x: (B, D), h: (B, H), W_xh: (D, H), W_hh: (H, H), b_h: (H,)) -> (B, H)",
        _rnn_step,
        _rnn_cases,
        "H_t = tanh(X_t W_xh + H_{t−1} W_hh + b_h), row vectors as in the chapter.",
        (
            Mistake(
                "W_hh is transposed (H_{t−1} W_hhᵀ)",
                lambda x, h, W_xh, W_hh, b: torch.tanh(x @ W_xh + h @ W_hh.T + b),
            ),
            Mistake(
                "the bias is left out",
                lambda x, h, W_xh, W_hh, b: torch.tanh(x @ W_xh + h @ W_hh),
            ),
        ),
        rtol=1e-6,
        atol=1e-10,
    ),
    Exercise(
        "ch05.bptt_step",
        "rnn_step_backward(x, h, W_xh, W_hh, b_h, dh: (B, H)) -> "
        "(dh_prev (B, H), dW_xh (D, H), dW_hh (H, H), db_h (H,))",
        _rnn_step_backward,
        _backward_cases,
        "dZ = dH ⊙ (1 − H_t²) with H_t = tanh(X W_xh + H_{t−1} W_hh + b_h); then "
        "dH_{t−1} = dZ W_hhᵀ, dW_xh = Xᵀ dZ, dW_hh = H_{t−1}ᵀ dZ, db_h = Σ_batch dZ.",
        (
            Mistake("the tanh derivative is left out (dZ = dH)", _no_tanh_derivative),
            Mistake(
                "tanh' is taken at H_{t−1}, not at H_t (dZ = dH ⊙ (1 − H_{t−1}²))",
                _derivative_at_h_prev,
            ),
            Mistake("dW_hh is transposed (dZᵀ H_{t−1})", _w_hh_transposed),
            Mistake(
                "dH_{t−1} goes back through W_hh, not W_hhᵀ (dZ W_hh)",
                _h_prev_through_w_hh,
            ),
        ),
        rtol=1e-6,
        atol=1e-10,
    ),
)
