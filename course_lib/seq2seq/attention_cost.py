r"""What attention costs as the source and target grow: time and memory, measured. Chapter 7.

CS224N lecture 7. At each of the T_y decoder steps one query scores all T_x encoder states,
so a sentence pair costs T_x · T_y scores (times the score's width: 1 multiply-add per
entry for the dot score, A for the additive one) and the decoder keeps a T_y × T_x matrix of
weights, which training also has to keep for the backward pass. ``attention_cost`` runs
the decoder's attention reads exactly as :class:`~course_lib.seq2seq.Seq2Seq` does (keys
projected once, then one :func:`~course_lib.seq2seq.attend` per step) and measures the
seconds and the bytes autograd saves for the backward pass.
Shape letters: B batch, T_x source length, T_y target length, Dq query, Dk key width.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import torch
from torch import nn

from course_lib.runtime import run_seed
from course_lib.seq2seq.attention import attend

__all__ = ["AttentionCost", "attention_cost"]


class AttentionCost(NamedTuple):
    """One measurement: the lengths, the best wall time of the T_y attention reads, and the
    bytes of the distinct tensors autograd saved for their backward pass."""

    T_x: int
    T_y: int
    seconds: float
    saved_bytes: int


def _check_lengths(T_x: int, T_y: int, batch: int, repeats: int) -> None:
    for name, value in [("T_x", T_x), ("T_y", T_y), ("batch", batch)]:
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int; got {value!r}")
    if not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be a positive int; got {repeats!r}")


def _attention_reads(scorer: nn.Module, queries, keys, mask) -> torch.Tensor:
    """The decoder's T_y attention reads: project the keys once, attend at every step."""
    projected = scorer.project_keys(keys)  # (B, T_x, *)
    contexts = [
        attend(scorer, queries[:, t], keys, mask, projected)[0]  # (B, Dk)
        for t in range(queries.size(1))
    ]
    return torch.stack(contexts, dim=1)  # (B, T_y, Dk)


def attention_cost(
    scorer: nn.Module,
    d_query: int,
    d_key: int,
    T_x: int,
    T_y: int,
    *,
    batch: int = 16,
    repeats: int = 3,
    device: torch.device | str | None = None,
) -> AttentionCost:
    """Time and memory of T_y attention reads over T_x encoder states, for ``scorer``.

    Random queries (B, T_y, Dq) and keys (B, T_x, Dk) in float32 on ``device``; the
    time is the best of ``repeats`` runs without autograd (as when decoding);
    ``saved_bytes``, from a run with autograd (as when training), counts each storage
    autograd keeps for backward once (the keys, saved at every step, count once).
    """
    _check_lengths(T_x, T_y, batch, repeats)
    g = torch.Generator().manual_seed(run_seed(0))
    queries = torch.randn(batch, T_y, d_query, generator=g).to(device)  # (B, T_y, Dq)
    keys = torch.randn(batch, T_x, d_key, generator=g).to(device)  # (B, T_x, Dk)
    keys.requires_grad_(True)
    queries.requires_grad_(True)
    mask = torch.ones(batch, T_x, dtype=torch.bool, device=keys.device)  # (B, T_x)
    saved = _saved_bytes(scorer, queries, keys, mask)  # training: kept for backward
    seconds = _best_seconds(scorer, queries, keys, mask, repeats)  # decoding
    return AttentionCost(T_x, T_y, seconds, saved)


def _saved_bytes(scorer: nn.Module, queries, keys, mask) -> int:
    """The bytes of the distinct storages autograd saves for the reads' backward pass."""
    storages: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        s = t.untyped_storage()
        storages[s.data_ptr()] = s.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        _attention_reads(scorer, queries, keys, mask)
    return sum(storages.values())


def _best_seconds(scorer: nn.Module, queries, keys, mask, repeats: int) -> float:
    """The best wall time of ``repeats`` runs of the reads, without autograd."""
    best = float("inf")
    with torch.no_grad():
        for _ in range(repeats):
            start = time.perf_counter()
            _attention_reads(scorer, queries, keys, mask)
            if keys.device.type == "cuda":
                torch.cuda.synchronize(keys.device)
            best = min(best, time.perf_counter() - start)
    return best
