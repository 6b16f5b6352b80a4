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
