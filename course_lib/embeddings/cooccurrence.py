r"""Count-based word vectors: window co-occurrence counts, PPMI and truncated SVD. Chapter 1.

CS224N lecture 1 ("Word vectors"): before word2vec, a word was represented by the row of a
word-by-word co-occurrence matrix X, made smaller and better by re-weighting the counts and
keeping the top k singular directions. Papers: latent semantic analysis (Deerwester, Dumais, Furnas,
Landauer and Harshman, 1990, "Indexing by latent semantic analysis") for the SVD; Rohde, Gonnerman
and Plaut
(2005, "An improved model of semantic similarity based on lexical co-occurrence", COALS) for the
hacks the lecture lists: clip or log the counts, ramped windows that weight near words more; Church
and Hanks (1990) for PMI and Levy, Goldberg and Dagan (2015) for the 0.75 context smoothing.

A corpus is a list of sentences of token ids (``list[list[int]]``, 1-D LongTensors, or a 2-D
LongTensor of rows); windows never cross a sentence. Ids >= ``vocab_size`` become ``unk_id`` or are
dropped, ``ignore_index`` is dropped; a dropped word keeps its position (``_common`` has details).

Shape letters: N tokens in the corpus, S sentences, P pairs, V vocabulary, C contexts (columns),
k kept singular directions.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch
from torch import Tensor

from course_lib.embeddings._common import (
    Corpus,
    Device,
    check_positive_int,
    check_window,
    describe,
    flatten_corpus,
    restrict,
)
from course_lib.runtime import run_seed

WEIGHTINGS = ("flat", "harmonic", "ramped")


def _offset_weight(offset: int, window: int, weighting: str) -> float:
    if weighting == "flat":
        return 1.0
    if weighting == "harmonic":
        return 1.0 / offset
    return float(window + 1 - offset)  # "ramped" (COALS): window, window - 1, ..., 1


def _offset_pairs(tokens: Tensor, seg: Tensor, window: int) -> Iterator[tuple]:
    """For each offset 1..window, the (left, right) ids of the kept pairs that far apart."""
    for offset in range(1, min(window, tokens.numel() - 1) + 1):
        left, right = tokens[:-offset], tokens[offset:]  # (N - offset,) each
        same = seg[:-offset] == seg[offset:]  # (N - offset,)
        ok = same & (left >= 0) & (right >= 0)  # (N - offset,)
        yield offset, left[ok], right[ok]  # (P,), (P,)


def cooccurrence_matrix(
    sentences: Corpus,
    vocab_size: int,
    window: int,
    *,
    symmetric: bool = True,
    weighting: str = "flat",
    unk_id: int | None = None,
    ignore_index: int | None = None,
    sparse: bool = False,
    dtype: torch.dtype = torch.float32,
    device: Device = None,
) -> Tensor:
    r"""Window co-occurrence counts X[c, o] (lecture 1; Rohde et al., 2005). Chapter 1.

    X[c, o] = Σ over tokens c and each o at most ``window`` positions away in the same sentence of
    the weight of that distance d: 1 (``"flat"``), 1/d (``"harmonic"``, as GloVe) or
    ``window + 1 - d`` (``"ramped"``, COALS). ``symmetric=True`` counts both sides, so X = Xᵀ;
    ``symmetric=False`` counts only the right side: X[i, j] weights j appearing after i (the
    symmetric matrix is X + Xᵀ). Vectorised: one scatter-add per offset, no loop over pairs.

    sentences: see the module docstring; vocab_size: V, the ids kept (others -> unk_id or dropped).
    Returns a dense (V, V) tensor of ``dtype`` (or a coalesced sparse COO tensor if ``sparse``).
    """
    check_window(window)
    check_positive_int(vocab_size, "vocab_size")
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {weighting!r}")
    tokens, seg = flatten_corpus(sentences, device)  # (N,), (N,)
    tokens = restrict(tokens, vocab_size, unk_id, ignore_index)  # (N,)
    V, dev = vocab_size, tokens.device
    counts = None if sparse else torch.zeros(V * V, dtype=dtype, device=dev)  # (V·V,)
    flat_ids, weights = [], []
    for offset, left, right in _offset_pairs(tokens, seg, window):
        idx = left * V + right  # (P,) flat index of X[left, right]
        if symmetric:
            idx = torch.cat([idx, right * V + left])  # (2P,)
        weight = _offset_weight(offset, window, weighting)
        w = torch.full(idx.shape, weight, dtype=dtype, device=dev)  # (P,)
        if counts is None:
            flat_ids.append(idx)
            weights.append(w)
        else:
            counts.index_add_(0, idx, w)  # (V·V,)
    if counts is not None:
        return counts.view(V, V)  # (V, V)
    idx = (
        torch.cat(flat_ids)
        if flat_ids
        else torch.zeros(0, dtype=torch.long, device=dev)
    )
    w = (
        torch.cat(weights) if weights else torch.zeros(0, dtype=dtype, device=dev)
    )  # (P,)
    idx, order = torch.sort(
        idx
    )  # (P,), (P,): sort + sum runs is faster than .coalesce()
    cells, which = torch.unique_consecutive(idx, return_inverse=True)  # (K,), (P,)
    values = torch.zeros(cells.numel(), dtype=dtype, device=dev)  # (K,)
    values.index_add_(0, which, w[order])  # (K,)
    rows_cols = torch.stack([cells // V, cells % V])  # (2, K)
    return torch.sparse_coo_tensor(
        rows_cols, values, (V, V), is_coalesced=True, check_invariants=False
    )  # (V, V)


def _sparse(indices: Tensor, values: Tensor, shape: tuple[int, ...]) -> Tensor:
    sparse = torch.sparse_coo_tensor(indices, values, shape, check_invariants=False)
    return sparse.coalesce()  # shape


def _check_counts(counts: Tensor, name: str = "counts") -> None:
    if not isinstance(counts, Tensor) or counts.dim() != 2:
        raise ValueError(f"{name} must be a 2-D tensor (V, C), got {describe(counts)}")
    values = counts.coalesce().values() if counts.is_sparse else counts
    if values.numel() and float(values.min()) < 0:
        low = float(values.min())
        raise ValueError(f"{name} must be non-negative, got a minimum of {low}")


def ppmi(counts: Tensor, *, alpha: float = 1.0) -> Tensor:
    r"""Positive pointwise mutual information (Church & Hanks, 1990; lecture 1). Chapter 1.

    PPMI(w, c) = max(0, log P(w, c) / (P(w) P_α(c))) with P(w, c) = X[w, c] / Σ X,
    P(w) = Σ_c X[w, c] / Σ X and P_α(c) = (Σ_w X[w, c])^α / Σ_c' (Σ_w X[w, c'])^α. ``alpha=0.75``
    smooths the context distribution (Levy, Goldberg & Dagan, 2015) so rare contexts score lower.
    Cells with X = 0 (log 0 = -inf) get 0. counts: (V, C) dense or sparse; returns the same kind
    and dtype (float32 for integer counts).
    """
    _check_counts(counts)
    if not alpha > 0:
        raise ValueError(
            f"alpha must be > 0 (1 = plain PMI, 0.75 = smoothed), got {alpha}"
        )
    dtype = counts.dtype if counts.dtype.is_floating_point else torch.float32
    X = counts.coalesce() if counts.is_sparse else counts  # (V, C)
    row = (
        torch.sparse.sum(X, 1).to_dense() if X.is_sparse else X.sum(1)
    ).double()  # (V,)
    col = (
        torch.sparse.sum(X, 0).to_dense() if X.is_sparse else X.sum(0)
    ).double()  # (C,)
    col_alpha = col**alpha  # (C,)
    log_p_c = (col_alpha / col_alpha.sum()).log().to(dtype)  # (C,)  log P_α(c)
    log_row = row.log().to(dtype)  # (V,)  log Σ_c X[w, c]
    # log P(w,c) / (P(w) P_α(c)) = log X[w,c] - log Σ_c X[w,c] - log P_α(c)
    if X.is_sparse:
        (i, j), x = X.indices(), X.values().to(dtype)  # (P,), (P,), (P,)
        pmi = (x.log() - log_row[i] - log_p_c[j]).clamp_min(0)  # (P,)
        return _sparse(X.indices(), pmi.masked_fill(x == 0, 0), X.shape)  # (V, C)
    pmi = X.to(dtype).log()  # (V, C); in place below: one (V, C) buffer for a big V
    pmi.sub_(log_row[:, None]).sub_(log_p_c[None, :]).clamp_min_(0)  # (V, C)
    return pmi.masked_fill_(X == 0, 0)  # (V, C); also the nan of all-zero rows


def log_counts(counts: Tensor) -> Tensor:
    """log(1 + X): the lecture's "log the frequencies" (Rohde et al., 2005). (V, C) -> (V, C)."""
    _check_counts(counts)
    return counts.log1p()  # (V, C)


def clip_counts(counts: Tensor, max_count: float = 100.0) -> Tensor:
    """min(X, t), t ≈ 100: stop function words dominating (lecture 1; Rohde et al., 2005)."""
    _check_counts(counts)
    if counts.is_sparse:
        X = counts.coalesce()  # (V, C)
        return _sparse(X.indices(), X.values().clamp_max(max_count), X.shape)  # (V, C)
    return counts.clamp_max(max_count)  # (V, C)


@contextlib.contextmanager
def _seeded(device: torch.device, seed: int) -> Iterator[None]:
    """Seed torch's generator for ``device`` inside the block, restoring the outer state after."""
    accel = [] if device.type == "cpu" else [device.index or 0]
    kind = "cuda" if device.type == "cpu" else device.type
    with torch.random.fork_rng(devices=accel, device_type=kind):
        torch.manual_seed(run_seed(seed))
        yield


def truncated_svd(
    matrix: Tensor,
    k: int,
    *,
    method: str = "full",
    power: float = 1.0,
    seed: int = 0,
    niter: int = 4,
) -> tuple[Tensor, Tensor]:
    r"""Word vectors from the top-k SVD, X ≈ U_k S_k V_kᵀ (LSA: Deerwester et al., 1990). Chapter 1.

    Returns the word vectors U_k S_k^``power`` (V, k) (``power=1`` as in the lecture; 0.5 or 0
    often work better, Levy et al., 2015) and the singular values S, descending: all min(V, C) with
    ``method="full"`` (``torch.linalg.svd``), the top k with ``"lowrank"`` (``torch.svd_lowrank``,
    randomised, seeded with ``seed``; for large sparse X). Each direction's sign is fixed so its
    largest-magnitude entry in U is positive, making plots identical between runs.
    """
    if not isinstance(matrix, Tensor) or matrix.dim() != 2:
        raise ValueError(f"matrix must be a 2-D tensor (V, C), got {describe(matrix)}")
    rank = min(matrix.shape)
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= rank:
        raise ValueError(f"k must be an int in [1, min(V, C) = {rank}], got {k!r}")
    if method == "full":
        dense = matrix.to_dense() if matrix.is_sparse else matrix  # (V, C)
        U, S, _ = torch.linalg.svd(dense, full_matrices=False)  # (V, r), (r,), (r, C)
    elif method == "lowrank":
        with _seeded(matrix.device, seed):
            q = min(k + 10, rank)  # a few extra directions make the top k accurate
            U, S, _ = torch.svd_lowrank(matrix, q=q, niter=niter)  # (V, q), (q,)
        S = S[:k]  # (k,)
    else:
        raise ValueError(f"method must be 'full' or 'lowrank', got {method!r}")
    U_k = U[:, :k]  # (V, k)
    biggest = U_k.abs().argmax(dim=0)  # (k,)
    signs = U_k.gather(0, biggest[None, :]).sign()  # (1, k)
    signs = torch.where(signs == 0, 1.0, signs).to(U_k.dtype)  # (1, k)
    return U_k * signs * S[:k] ** power, S  # (V, k), (r,) or (k,)


def explained_variance(S: Tensor, total: float | Tensor | None = None) -> Tensor:
    r"""Share of ‖X‖²_F each singular direction keeps, s_i² / Σ_j s_j². Chapter 1.

    S: (r,) singular values. ``total`` overrides the denominator, e.g. ``(X ** 2).sum()`` when S
    holds only the top k of a low-rank SVD. Returns (r,); ``.cumsum(0)`` gives the kept share.
    """
    if not isinstance(S, Tensor) or S.dim() != 1:
        raise ValueError(
            f"S must be a 1-D tensor of singular values, got {describe(S)}"
        )
    sq = S.double() ** 2  # (r,)
    denom = sq.sum() if total is None else torch.as_tensor(total, dtype=torch.float64)
    return (sq / denom).to(S.dtype)  # (r,)
