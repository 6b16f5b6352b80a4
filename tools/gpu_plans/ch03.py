"""Chapter 3's gpu profile: the window classifier trained by the engine and by torch."""

from __future__ import annotations

import math

from gpu_plans.sizes import ewt_words


def _batches(cfg: dict) -> int:
    """One batch of ``cfg["batch"]`` windows a step, a window per training word."""
    return math.ceil(ewt_words("train", cfg["train_sentences"]) / cfg["batch"])


def steps(cfg: dict) -> dict[str, int]:
    return {"ebeba5aa": cfg["epochs"] * _batches(cfg)}  # train_with_torch's SGD


def work(cfg: dict) -> dict[str, float]:
    # the same cell first trains the engine, one Value graph a batch, on the CPU
    return {"ebeba5aa": cfg["epochs"] * _batches(cfg)}
