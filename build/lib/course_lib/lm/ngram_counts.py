r"""Counting n-grams of a token stream with NumPy, and looking them up. Chapter 5.

CS224N lecture 5: an n-gram model estimates P(x_t | x_{t-n+1..t-1}) from counts, so
its whole state is the table of n-gram counts for every order k = 1..n. Here each
table is a sorted array of integer keys, key = (row of the (k-1)-gram context) · V + w,
built with ``np.unique``: 2 M tokens of WikiText-2 count in about a second per order,
and a test stream is looked up with ``np.searchsorted`` (no Python loop over tokens).

Shape legend: N training tokens, M looked-up tokens, R_k rows (distinct k-grams), V vocabulary.
"""

from __future__ import annotations

import numpy as np

BEGIN = -2  # a context position before the start of the stream
MISSING = -1  # a k-gram (or context) never seen in training


def _check_stream(ids: np.ndarray, order: int, vocab_size: int) -> np.ndarray:
    """ids as a non-empty 1-D int64 array (N,) of ids in [0, V); order an int >= 1."""
    if not isinstance(order, int) or order < 1:
        raise ValueError(f"order must be an int >= 1, got {order!r}")
    ids = np.asarray(ids, dtype=np.int64)  # (N,)
    if ids.ndim != 1 or ids.size == 0:
        raise ValueError(f"ids must be a non-empty 1-D sequence, got shape {ids.shape}")
    if ids.min() < 0 or ids.max() >= vocab_size:
        raise ValueError(
            f"ids must lie in [0, {vocab_size}), got {ids.min()}..{ids.max()}"
        )
    return ids


class NGramCounts:
    """The k-gram tables, k = 1..order, of one stream of token ids in ``[0, V)``.

    For every order k: ``keys[k]`` (R_k,) sorted keys, ``counts[k]`` (R_k,) how often
    each k-gram occurred, ``context[k]`` (R_k,) the row of its first k-1 words in table
    k-1 (0 for k = 1: the empty context), ``word[k]`` (R_k,) its last word, and for
    k >= 2 ``suffix[k]`` (R_k,) the row of its last k-1 words in table k-1 (what
    Kneser-Ney's continuation counts need). Chapter 5.
    """

    def __init__(self, ids: np.ndarray, order: int, vocab_size: int) -> None:
        ids = _check_stream(ids, order, vocab_size)  # (N,)
        self.order, self.V = order, int(vocab_size)
        self.keys, self.counts, self.context = {}, {}, {}
        self.word, self.suffix = {}, {}
        positions = np.arange(ids.size)  # (N,)
        prev = None  # row of the (k-1)-gram ending at each position, (N,)
        for k in range(1, order + 1):
            valid = positions[k - 1 :]  # (N-k+1,) positions where a k-gram ends
            # key = (row of the (k-1)-gram context) · V + w; the bare word for k = 1
            key = ids if k == 1 else prev[valid - 1] * self.V + ids[valid]  # (N-k+1,)
            uniq, first, inv = np.unique(key, return_index=True, return_inverse=True)
            rows = np.full(ids.size, MISSING, dtype=np.int64)  # (N,)
            rows[valid] = inv  # (N-k+1,) the row of each k-gram in its table
            self.keys[k] = uniq  # (R_k,)
            self.counts[k] = np.bincount(inv, minlength=uniq.size)  # (R_k,)
            self.context[k] = uniq // self.V  # (R_k,)
            self.word[k] = uniq % self.V  # (R_k,)
            if k >= 2:
                self.suffix[k] = prev[valid[first]]  # (R_k,)
            prev = rows

    def rows(self, k: int) -> int:
        """R_k, the number of distinct k-grams seen (the model's size at order k)."""
        return int(self.keys[k].size)

    def lookup(self, k: int, context: np.ndarray, words: np.ndarray) -> np.ndarray:
        """Rows of the k-grams (context row, word), MISSING where unseen. (M,), (M,) -> (M,)."""
        context = np.asarray(context, dtype=np.int64)  # (M,)
        key = context * self.V + np.asarray(words, dtype=np.int64)  # (M,)
        pos = np.searchsorted(self.keys[k], key)  # (M,)
        pos_ok = np.minimum(pos, self.keys[k].size - 1)  # (M,)
        found = (
            (pos < self.keys[k].size) & (self.keys[k][pos_ok] == key) & (context >= 0)
        )
        return np.where(found, pos_ok, MISSING)  # (M,)

    def stream(self, ids: np.ndarray) -> tuple[dict, dict]:
        """For a stream (M,): ``rows[k]`` of the k-gram ending at each position and
        ``ctx[k]`` of its (k-1)-word context (BEGIN before the stream starts, MISSING
        when unseen). Each (M,)."""
        ids = np.asarray(ids, dtype=np.int64)  # (M,)
        rows, ctx = {}, {}
        ctx[1] = np.zeros(ids.size, dtype=np.int64)  # (M,)
        rows[1] = self.lookup(1, ctx[1], ids)  # (M,)
        for k in range(2, self.order + 1):
            c = np.full(ids.size, BEGIN, dtype=np.int64)  # (M,)
            c[k - 1 :] = rows[k - 1][k - 2 : ids.size - 1]
            r = np.full(ids.size, MISSING, dtype=np.int64)  # (M,)
            ok = c >= 0
            r[ok] = self.lookup(k, c[ok], ids[ok])
            ctx[k], rows[k] = c, r
        return rows, ctx

    def candidates(self, context_ids: list[int]) -> tuple[dict, dict]:
        """``rows[k]``, ``ctx[k]`` (each (V,)) for every next word after ``context_ids``."""
        V = self.V
        words = np.arange(V)  # (V,)
        rows, ctx = {}, {}
        h = 0  # row of the context in table k-1; the empty context for k = 1
        for k in range(1, self.order + 1):
            if k >= 2:
                if len(context_ids) < k - 1:
                    h = BEGIN
                else:
                    # the context of order k is the (k-1) last ids: walk the tables
                    c = 0
                    for j, w in enumerate(context_ids[len(context_ids) - (k - 1) :]):
                        c = int(self.lookup(j + 1, np.array([c]), np.array([w]))[0])
                        if c < 0:
                            break
                    h = c
            ctx[k] = np.full(V, h, dtype=np.int64)  # (V,)
            rows[k] = (
                self.lookup(k, ctx[k], words) if h >= 0 else np.full(V, MISSING)
            )  # (V,)
        return rows, ctx

    def unseen_fraction(self, ids: np.ndarray) -> dict[int, float]:
        """The sparsity problem, measured: for each k, the share of the stream's k-grams
        (positions with a full context) never seen in training."""
        rows, ctx = self.stream(ids)
        out = {}
        for k in range(1, self.order + 1):
            has_context = ctx[k] != BEGIN
            out[k] = float((rows[k][has_context] < 0).mean())
        return out
