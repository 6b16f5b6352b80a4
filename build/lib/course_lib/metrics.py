r"""Metrics, each where the lecture defines it: correlations for word-vector evaluation (Chapter 1).

Later chapters add perplexity, accuracy, UAS/LAS and BLEU here. Shape letters: N items.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor


def _average_ranks(x: Tensor) -> Tensor:
    """Ranks 1..N, ties sharing the mean of their ranks (as scipy.stats.rankdata). (N,) -> (N,)."""
    sorted_x, order = torch.sort(x, stable=True)  # (N,), (N,)
    _, inverse, counts = torch.unique_consecutive(
        sorted_x, return_inverse=True, return_counts=True
    )  # (N,), (G,)
    group_rank = counts.cumsum(0).double() - (counts.double() - 1) / 2  # (G,)
    ranks = torch.empty(x.shape, dtype=torch.float64, device=x.device)  # (N,)
    ranks[order] = group_rank[inverse]  # (N,)
    return ranks


def _as_1d(x: Sequence[float] | Tensor, name: str) -> Tensor:
    t = torch.as_tensor(x, dtype=torch.float64)  # (N,)
    if t.dim() != 1:
        raise ValueError(f"{name} must be 1-D, got shape {tuple(t.shape)}")
    return t


def pearson_correlation(
    x: Sequence[float] | Tensor, y: Sequence[float] | Tensor
) -> float:
    r"""r = Σ(x - x̄)(y - ȳ) / √(Σ(x - x̄)² Σ(y - ȳ)²); nan if x or y is constant. Chapter 1."""
    x, y = _as_1d(x, "x"), _as_1d(y, "y")  # (N,), (N,)
    if x.shape != y.shape or x.numel() < 2:
        raise ValueError(
            f"x and y need the same length >= 2, got {x.numel()} and {y.numel()}"
        )
    xc, yc = x - x.mean(), y - y.mean()  # (N,), (N,)
    denom = float((xc.square().sum() * yc.square().sum()).sqrt())
    return float((xc * yc).sum()) / denom if denom > 0 else math.nan


def spearman_correlation(
    x: Sequence[float] | Tensor, y: Sequence[float] | Tensor
) -> float:
    r"""Spearman's ρ: Pearson's r of the ranks, ties given their average rank. Chapter 1."""
    x, y = _as_1d(x, "x"), _as_1d(y, "y")  # (N,), (N,)
    if x.shape != y.shape:
        raise ValueError(
            f"x and y need the same length, got {x.numel()} and {y.numel()}"
        )
    return pearson_correlation(_average_ranks(x), _average_ranks(y))
