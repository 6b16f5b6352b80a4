r"""Interpolating a neural LM with an n-gram LM, the weight tuned on validation. Chapter 5.

Two language models that make different mistakes are better together:
P(w | h) = λ P_neural(w | h) + (1 - λ) P_ngram(w | h), 0 ≤ λ ≤ 1, a proper distribution
whenever both are (Jelinek & Mercer, 1980). Mikolov et al. (2011, "Empirical evaluation
and combination of advanced language modeling techniques") report that the mixture of
an RNN LM with a Kneser-Ney 5-gram beats either alone; the count model remembers rare
n-grams of the training text that the network, after one pass, has not. λ is chosen on
validation text by expectation-maximisation, which never lowers the likelihood:
posterior r_t = λ a_t / (λ a_t + (1 - λ) b_t), then λ ← mean_t r_t.

To mix the two on a stream, both must score the same tokens: :func:`stream_targets`
gives the positions of the stream that an evaluation over ``batchify``'s B streams
predicts, and :func:`target_log_probs` the neural model's log P of each of them.

Shape legend: M scored tokens, V vocabulary, B streams, L stream length, T window.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn

from course_lib.lm.rnn_lm import tbptt_batches
from course_lib.training import evaluating


def _check_probs(name: str, p: np.ndarray) -> None:
    if not np.all(np.isfinite(p)) or p.min(initial=0.0) < 0 or p.max(initial=0.0) > 1:
        raise ValueError(f"{name} must hold probabilities in [0, 1]")


def _check_lambda(lam: float) -> float:
    if isinstance(lam, bool) or not isinstance(lam, (int, float, np.floating)):
        raise TypeError(f"lam must be a number in [0, 1], got {type(lam).__name__}")
    if not 0.0 <= float(lam) <= 1.0:
        raise ValueError(f"lam must lie in [0, 1], got {lam!r}")
    return float(lam)


def _check_em_inputs(p_neural, p_ngram, start) -> tuple[np.ndarray, np.ndarray, float]:
    """The two (M,) float64 arrays and the starting λ of :func:`tune_lambda`."""
    a = np.asarray(p_neural, dtype=np.float64)  # (M,)
    b = np.asarray(p_ngram, dtype=np.float64)  # (M,)
    if a.ndim != 1 or a.shape != b.shape or a.size == 0:
        raise ValueError(
            "need two non-empty (M,) arrays of the same tokens, "
            f"got {a.shape}, {b.shape}"
        )
    _check_probs("p_neural", a)
    _check_probs("p_ngram", b)
    lam = _check_lambda(start)
    if not 0.0 < lam < 1.0:
        raise ValueError(f"start must lie strictly inside (0, 1), got {start!r}")
    if np.any((a <= 0) & (b <= 0)):  # for 0 < λ < 1, the mixture is 0 exactly there
        raise ValueError("some token has probability 0 under both models")
    return a, b, lam


def interpolate(p_neural, p_ngram, lam: float) -> np.ndarray:
    r"""λ P_neural + (1 - λ) P_ngram, element by element (Jelinek & Mercer, 1980).

    p_neural, p_ngram: probabilities of the same shape, either of the scored tokens
    (M,) or whole next-token distributions (..., V); lam: λ in [0, 1]. Returns the
    mixture, same shape; λ = 1 gives ``p_neural`` and λ = 0 ``p_ngram`` exactly.
    """
    a = np.asarray(p_neural, dtype=np.float64)  # (M,) or (..., V)
    b = np.asarray(p_ngram, dtype=np.float64)  # (M,) or (..., V)
    if a.shape != b.shape:
        raise ValueError(
            f"the two models must score the same tokens; got shapes {a.shape} and "
            f"{b.shape} (use stream_targets to align an n-gram stream)"
        )
    _check_probs("p_neural", a)
    _check_probs("p_ngram", b)
    lam = _check_lambda(lam)
    if lam == 1.0:
        return a.copy()
    if lam == 0.0:
        return b.copy()
    return lam * a + (1.0 - lam) * b  # (M,) or (..., V)


def tune_lambda(
    p_neural, p_ngram, *, start: float = 0.5, iters: int = 100, tol: float = 1e-7
) -> float:
    r"""The λ that maximises the likelihood of validation tokens, by EM.

    p_neural, p_ngram: (M,) probabilities each model gives the same M tokens.
    E-step r_t = λ a_t / (λ a_t + (1 - λ) b_t); M-step λ = mean_t r_t; stops when λ
    moves less than ``tol``. Returns λ in [0, 1].
    """
    a, b, lam = _check_em_inputs(p_neural, p_ngram, start)  # (M,), (M,), λ
    for _ in range(iters):
        mix = lam * a + (1.0 - lam) * b  # (M,) P(x_t) under the mixture
        r = lam * a / mix  # (M,) E-step: posterior that the neural LM made x_t
        new = float(np.mean(r))  # M-step: λ = mean_t r_t
        done = abs(new - lam) < tol
        lam = new
        if done:
            break
    return lam


def stream_targets(n_tokens: int, batch_size: int) -> np.ndarray:
    """Positions in the stream of the tokens a ``batchify(ids, B)`` evaluation predicts.

    batchify puts token b·L + t at row b, column t (L = n_tokens // B); the model
    predicts columns 1..L-1 of every row. Returns (B·(L-1),) indices, row by row, in
    the order of ``target_log_probs(...).reshape(-1)``.
    """
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    L = int(n_tokens) // batch_size
    if L < 2:
        raise ValueError(f"{n_tokens} tokens are too few for {batch_size} streams")
    rows = np.arange(batch_size)[:, None] * L  # (B, 1)
    return (rows + np.arange(1, L)[None, :]).reshape(-1)  # (B·(L-1),)


@torch.no_grad()
def target_log_probs(model: nn.Module, data: Tensor, bptt: int) -> Tensor:
    """log P(x_{t+1} | x_{≤t}) of every target of a batchified stream (B, L) -> (B, L-1).

    ``model`` is a :class:`course_lib.lm.rnn_lm.RNNLM` (``features`` and ``out``); the
    state is carried across windows as in ``evaluate_lm``, dropout is off.
    """
    if data.dim() != 2 or data.size(1) < 2:
        raise ValueError(
            f"data must be batchified (B, L >= 2), got {tuple(data.shape)}"
        )
    pieces, h = [], None
    with evaluating(model):
        for x, y in tbptt_batches(data, bptt):  # (B, T), (B, T)
            hs, h = model.features(x, h)  # (B, T, H)
            lp = model.out.target_log_prob(hs.reshape(-1, hs.size(-1)), y.reshape(-1))
            pieces.append(lp.view_as(y))  # (B·T,) -> (B, T)
    return torch.cat(pieces, dim=1)  # (B, L-1)
