r"""Perplexity, the language-modelling metric of CS224N lecture 5. Chapter 5.

perplexity = Π_t (1 / P(x_{t+1} | x_{≤t}))^{1/T} = exp( (1/T) Σ_t -log P(x_{t+1} | x_{≤t}) ),
the exponential of the average cross-entropy loss J(θ); lower is better, and a uniform
model over V words has perplexity V.

Shape legend: M scored tokens.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def perplexity(log_probs: Sequence[float] | np.ndarray) -> float:
    """exp(-mean natural-log probability); ``inf`` when some token has probability 0.

    log_probs: (M,) natural logs of P(x_t | x_<t), M >= 1.
    """
    lp = np.asarray(log_probs, dtype=np.float64)  # (M,)
    if lp.ndim != 1 or lp.size == 0:
        raise ValueError(
            f"log_probs must be a non-empty 1-D array, got shape {lp.shape}"
        )
    if np.any(lp > 1e-12):
        raise ValueError(
            "log-probabilities must be <= 0 (natural logs of probabilities)"
        )
    return float(np.exp(-lp.mean())) if np.isfinite(lp).all() else math.inf


def perplexity_from_loss(mean_cross_entropy: float) -> float:
    """exp(J): the perplexity of a mean cross-entropy loss in nats per token."""
    if not math.isfinite(mean_cross_entropy) or mean_cross_entropy < 0:
        raise ValueError(
            f"a mean cross-entropy must be finite and >= 0, got {mean_cross_entropy!r}"
        )
    return math.exp(mean_cross_entropy)


def bits_per_token(mean_cross_entropy: float) -> float:
    """J / ln 2: the loss in bits (bits per character for a character model)."""
    return mean_cross_entropy / math.log(2)


def line_totals(
    log_probs: Sequence[float] | np.ndarray,
    positions: Sequence[int] | np.ndarray,
    stream: Sequence[int] | np.ndarray,
    eos: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Each test line's negative log-likelihood and scored tokens: the items a bootstrap
    over the test lines resamples (``course_lib.compare.compare_bootstrap``).

    log_probs: (M,) natural logs of P of the tokens at ``positions`` (M,) of ``stream``
    (N,) token ids (or tokens) in which a line ends with its ``eos`` (which belongs to it).
    Returns ``(nll, tokens)``, (L,) each, over the L lines with a scored token, in stream
    order; ``exp(nll.sum() / tokens.sum())`` is ``perplexity(log_probs)``
    (:func:`perplexity_of_totals`).
    """
    lp = np.asarray(log_probs, dtype=np.float64)  # (M,)
    where = np.asarray(positions, dtype=np.int64)  # (M,)
    ends = np.asarray(stream) == eos  # (N,)
    if lp.ndim != 1 or lp.shape != where.shape or lp.size == 0:
        raise ValueError(
            f"log_probs and positions must be non-empty and of one length, got "
            f"{lp.shape} and {where.shape}"
        )
    if where.min() < 0 or where.max() >= ends.size:
        raise ValueError(f"positions must lie in the stream of {ends.size} tokens")
    line = np.concatenate(([0], np.cumsum(ends[:-1])))  # (N,) the line of each token
    of = line[where]  # (M,)
    nll = np.bincount(of, weights=-lp, minlength=int(line[-1]) + 1)  # (lines,)
    tokens = np.bincount(of, minlength=int(line[-1]) + 1)  # (lines,)
    keep = tokens > 0
    return nll[keep], tokens[keep].astype(np.float64)


def perplexity_of_totals(
    nll: Sequence[float] | np.ndarray, tokens: Sequence[float] | np.ndarray
) -> float:
    """exp(Σ nll / Σ tokens): the perplexity of the lines whose totals ``line_totals`` gave."""
    return perplexity_from_loss(float(np.sum(nll) / np.sum(tokens)))
