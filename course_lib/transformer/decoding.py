"""Greedy and beam-search decoding for the Transformer, with or without a KV cache. Chapter 8.

CS224N lectures 7–8. Without a cache every step runs the decoder over the whole prefix,
O(T²) work per sentence of T tokens; with it, each step feeds only the newest token and
appends its keys and values to each layer's cache (``Transformer.decode(cache=...)``).
Both give the same tokens (tested).

Beam search keeps the K best prefixes by total log-probability and scores a finished
hypothesis by log p / length^α (length normalisation; Wu et al., 2016, use a variant).

Shape legend: B batch, K beams, S source length, T target length, V vocabulary.
"""

from __future__ import annotations

import torch
from torch import Tensor

from course_lib.transformer.model import Encoded, Transformer

__all__ = ["beam_search", "greedy_decode"]


def _strip(ids: list[int], eos: int) -> list[int]:
    return ids[: ids.index(eos)] if eos in ids else ids


@torch.no_grad()
def greedy_decode(
    model: Transformer,
    src: Tensor,
    *,
    bos: int,
    eos: int,
    max_len: int = 50,
    use_cache: bool = True,
) -> list[list[int]]:
    """Pick the most probable next token until <eos> or ``max_len``: src (B, S) -> B id lists.

    The returned lists hold neither <bos> nor <eos>.
    """
    if max_len < 1:
        raise ValueError(f"max_len must be >= 1; got {max_len}")
    was = model.training
    model.eval()
    enc = model.encode(src)
    B = src.size(0)
    out = torch.full((B, 1), bos, dtype=torch.long, device=src.device)  # (B, 1)
    done = torch.zeros(B, dtype=torch.bool, device=src.device)  # (B,)
    cache = None
    for _ in range(max_len):
        if use_cache:
            logits, _, cache = model.decode(out[:, -1:], enc, cache=cache)  # (B, 1, V)
        else:
            logits, _, _ = model.decode(out, enc)  # (B, t, V)
        nxt = _never(logits[:, -1], model, bos).argmax(-1)  # (B,)
        out = torch.cat([out, nxt[:, None]], dim=1)  # (B, t + 1)
        done |= nxt == eos
        if done.all():
            break
    model.train(was)
    return [_strip(row[1:], eos) for row in out.tolist()]


def _never(logits: Tensor, model: Transformer, bos: int) -> Tensor:
    """Logits (N, V) with <pad> and <bos> made impossible: neither is ever generated."""
    logits = logits.clone()  # (N, V)
    logits[:, [model.config.pad_id, bos]] = float("-inf")
    return logits


def _expand(enc: Encoded, k: int) -> Encoded:
    return Encoded(
        enc.memory.expand(k, -1, -1),  # (K, S, D)
        enc.src_mask.expand(k, -1, -1, -1),  # (K, 1, 1, S)
        enc.weights,
    )


@torch.no_grad()
def beam_search(
    model: Transformer,
    src: Tensor,
    *,
    bos: int,
    eos: int,
    beam_size: int = 4,
    max_len: int = 50,
    alpha: float = 0.6,
    use_cache: bool = True,
) -> list[list[int]]:
    """Beam search for each sentence of src (B, S), one at a time: B id lists.

    Keeps ``beam_size`` prefixes; a prefix ending in <eos> is set aside with score
    log p / length^α; stops when ``beam_size`` are set aside or after ``max_len`` steps,
    and returns the best (without <bos>/<eos>).
    """
    if beam_size < 1 or max_len < 1:
        raise ValueError(
            f"beam_size and max_len must be >= 1; got {beam_size}, {max_len}"
        )
    was = model.training
    model.eval()
    results = []
    for b in range(src.size(0)):
        one = src[b : b + 1]  # (1, S)
        one = (
            one[:, : int((one != model.config.pad_id).sum())]
            if one.size(1) > 1
            else one
        )
        enc = model.encode(one)
        seqs = torch.full((1, 1), bos, dtype=torch.long, device=src.device)  # (K, t)
        scores = torch.zeros(1, device=src.device)  # (K,)
        finished: list[tuple[float, list[int]]] = []
        cache = None
        for step in range(1, max_len + 1):
            e = _expand(enc, seqs.size(0))
            if use_cache:
                last = seqs[:, -1:]  # (K, 1)
                logits, _, cache = model.decode(last, e, cache=cache)  # (K, 1, V)
            else:
                logits, _, _ = model.decode(seqs, e)  # (K, t, V)
            logp = _never(logits[:, -1].float(), model, bos).log_softmax(-1)  # (K, V)
            total = (scores[:, None] + logp).flatten()  # (K·V,)
            top, idx = total.topk(min(2 * beam_size, total.numel()))  # (2K,)
            V = logp.size(-1)
            keep_rows, keep_tok, keep_scores = [], [], []
            for s, i in zip(top.tolist(), idx.tolist(), strict=True):
                row, tok = divmod(i, V)
                if tok == eos:
                    finished.append((s / step**alpha, seqs[row, 1:].tolist()))
                else:
                    keep_rows.append(row)
                    keep_tok.append(tok)
                    keep_scores.append(s)
                if len(keep_rows) == beam_size:
                    break
            if len(finished) >= beam_size or not keep_rows:
                break
            rows = torch.tensor(keep_rows, device=src.device)  # (K,)
            tok = torch.tensor(keep_tok, device=src.device)  # (K,)
            seqs = torch.cat([seqs[rows], tok[:, None]], dim=1)  # (K, t + 1)
            scores = torch.tensor(keep_scores, device=src.device)  # (K,)
            if use_cache:  # each surviving beam takes its parent's keys and values
                cache = [
                    {
                        "self": (c["self"][0][rows], c["self"][1][rows]),
                        "cross": (c["cross"][0][rows], c["cross"][1][rows]),
                    }
                    for c in cache
                ]
        if not finished:  # nothing ended in time: take the best open prefix
            finished = [
                (s / seqs.size(1) ** alpha, q[1:])
                for s, q in zip(scores.tolist(), seqs.tolist(), strict=True)
            ]
        results.append(max(finished, key=lambda f: f[0])[1])
    model.train(was)
    return results
