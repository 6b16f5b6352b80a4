r"""Count-based n-gram language models: MLE, add-k, backoff, interpolated Kneser-Ney. Chapter 5.

CS224N lecture 5: P(x_1..x_T) = Π_t P(x_t | x_{<t}), and an n-gram model keeps only the
last n-1 words, P(x_t | x_{t-n+1..t-1}) = c(x_{t-n+1..t}) / c(x_{t-n+1..t-1}) (maximum
likelihood). Its two problems are sparsity (an unseen n-gram gets probability 0, an
unseen context 0/0) and size (the tables grow with n). The cures here:

- add-k (Laplace for k = 1): (c(h w) + k) / (c(h) + k V);
- backoff (Katz, 1987, with absolute discounting): a seen n-gram keeps (c(h w) - D)/c(h),
  the rest goes to the (n-1)-gram model of the unseen words, renormalised;
- interpolated Kneser-Ney (Kneser & Ney, 1995; Chen & Goodman, 1999, eq. 24):
  P(w | h) = max(c(h w) - D, 0)/c(h) + D N1+(h •)/c(h) · P(w | h'), h' = h without its
  first word; the lower orders count *continuations* N1+(• h' w) instead of c(h' w), and
  the unigram level is interpolated with the uniform 1/V. D = n1 / (n1 + 2 n2) per order.

Every model here gives a proper distribution over the vocabulary for every context.
Tokens outside the training vocabulary (in a context or a test stream) are mapped to
``<unk>``; WikiText-2 already has ``<unk>`` for rare words, so its test set has none.
The stream is scored as in PyTorch's ``word_language_model``: one long sequence, ``<eos>``
between lines, the first n-1 tokens scored with the context they have.

Shape legend: M scored tokens, V vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from course_lib.checks import check_coverage
from course_lib.data.vocab import Vocab
from course_lib.lm.ngram_counts import BEGIN, NGramCounts
from course_lib.lm.perplexity import perplexity

UNK = "<unk>"


class NGramLM:
    """Base class: the counts of an order-n model and the scoring every smoothing shares.

    tokens: the training stream (list of str), order: n >= 1, vocab: the vocabulary
    (built from ``tokens`` with ``<unk>`` first when None). counts: the tables of the
    same ``tokens`` counted once up to some order >= n, to share between models (the
    tables *are* the model; the smoothing is only how they are read). Subclasses define
    ``_level(k, rows, ctx, p_lower)``: P_k(w | h) from the order-k table given the
    order-(k-1) probabilities ``p_lower``. Chapter 5.
    """

    name = "n-gram"

    def __init__(
        self,
        tokens: Sequence[str],
        order: int,
        vocab: Vocab | None = None,
        *,
        counts: NGramCounts | None = None,
    ) -> None:
        if isinstance(tokens, str):
            raise TypeError("tokens must be a list of tokens, not a string; split it")
        if not isinstance(order, int) or order < 1:
            raise ValueError(f"order must be an int >= 1, got {order!r}")
        if len(tokens) == 0:
            raise ValueError(
                "the training corpus is empty: an n-gram model needs tokens"
            )
        given = vocab
        if vocab is None:
            vocab = Vocab.build(tokens, specials=(UNK,), unk=UNK)
        if vocab.unk is None:
            raise ValueError(
                "the vocabulary needs an unknown token (<unk>) for OOV words"
            )
        self.order, self.vocab, self.V = order, vocab, len(vocab)
        if counts is None:
            counts = NGramCounts(np.array(self.encode(tokens)), order, self.V)
        elif counts.order < order or counts.V != self.V:
            raise ValueError(
                f"counts of order {counts.order} over V={counts.V} cannot serve an "
                f"order-{order} model over V={self.V}; count the same tokens again"
            )
        self.counts = counts
        if given is not None:
            self._check_coverage()
        # per order k: c(h) and N1+(h •) of the counts each level uses, by context row
        self._a, self._total, self._types = {}, {}, {}
        for k in range(1, order + 1):
            a = self._level_counts(k).astype(np.float64)  # (R_k,)
            n_ctx = 1 if k == 1 else self.counts.rows(k - 1)
            self._a[k] = a
            self._total[k] = np.bincount(self.counts.context[k], a, minlength=n_ctx)
            self._types[k] = np.bincount(self.counts.context[k], a > 0, minlength=n_ctx)

    def _check_coverage(self) -> None:
        """Most of the training stream must be in a given vocabulary, not ``<unk>``."""
        keys, counts = self.counts.keys[1], self.counts.counts[1]  # unigrams: key = id
        at = int(np.searchsorted(keys, self.vocab.unk_index))
        unknown = (
            int(counts[at])
            if at < keys.size and keys[at] == self.vocab.unk_index
            else 0
        )
        check_coverage(
            unknown,
            int(counts.sum()),
            what="training tokens",
            size=self.V,
            unk=self.vocab.unk,
        )

    def _level_counts(self, k: int) -> np.ndarray:
        return self.counts.counts[k]

    def encode(self, tokens: Sequence[str]) -> list[int]:
        """Vocabulary ids of ``tokens``; out-of-vocabulary tokens become ``<unk>``."""
        return self.vocab.encode(tokens)

    def _probs(self, rows: dict, ctx: dict) -> np.ndarray:
        p = np.full(rows[1].size, 1.0 / self.V)  # (M,)
        for k in range(1, self.order + 1):
            here = ctx[k] != BEGIN
            p[here] = self._level(k, rows[k][here], ctx[k][here], p[here])
        return p

    def _level(self, k, rows, ctx, p_lower):  # pragma: no cover - abstract
        raise NotImplementedError

    def _lookup_level(self, k, rows, ctx):
        """c and c(h) for each position (0 where unseen). (M,), (M,) -> (M,), (M,)."""
        a = np.where(rows >= 0, self._a[k][np.maximum(rows, 0)], 0.0)  # (M,)
        total = np.where(ctx >= 0, self._total[k][np.maximum(ctx, 0)], 0.0)  # (M,)
        types = np.where(ctx >= 0, self._types[k][np.maximum(ctx, 0)], 0.0)  # (M,)
        return a, total, types

    def probs(self, tokens: Sequence[str]) -> np.ndarray:
        """P(x_t | x_{t-n+1..t-1}) of every token of a stream. Returns (M,)."""
        ids = np.array(self.encode(tokens), dtype=np.int64)  # (M,)
        if ids.size == 0:
            raise ValueError("the stream to score is empty")
        return self._probs(*self.counts.stream(ids))

    def log_probs(self, tokens: Sequence[str]) -> np.ndarray:
        """Natural log of :meth:`probs` (-inf where a probability is 0). Returns (M,)."""
        with np.errstate(divide="ignore"):
            return np.log(self.probs(tokens))

    def perplexity(self, tokens: Sequence[str]) -> float:
        """exp of the mean negative log-likelihood of the stream (inf if any P = 0)."""
        return perplexity(self.log_probs(tokens))

    def distribution(self, context: Sequence[str]) -> np.ndarray:
        """P(w | context) for every w of the vocabulary, in vocabulary order. Returns (V,).

        Only the last n-1 tokens matter; OOV context tokens are read as ``<unk>``.
        """
        if isinstance(context, str):
            raise TypeError("context must be a list of tokens, not a string; split it")
        ids = self.encode(
            list(context)[len(context) - (self.order - 1) :] if self.order > 1 else []
        )
        return self._probs(*self.counts.candidates(ids))

    def step(self, tokens: torch.Tensor, state: list[tuple[int, ...]] | None):
        """Decoding protocol (:mod:`course_lib.decoding`): tokens (N,) -> log P(· | the
        last n-1 ids) (N, V), float64, and the new state: each row's last n-1 ids."""
        keep = self.order - 1
        old = state if state is not None else [()] * tokens.numel()
        new = []
        for history, token in zip(old, tokens.tolist(), strict=True):
            history = (*history, int(token))
            new.append(history[len(history) - keep :] if keep > 0 else ())
        p = np.stack([self._probs(*self.counts.candidates(list(h))) for h in new])
        with np.errstate(divide="ignore"):
            return torch.from_numpy(np.log(p)).to(tokens.device), new  # (N, V)

    def reorder(self, state: list[tuple[int, ...]] | None, rows: torch.Tensor):
        """Decoding protocol: keep, repeat or drop rows (N',) of the histories."""
        return None if state is None else [state[i] for i in rows.tolist()]

    def size(self) -> int:
        """How many n-grams the model stores (all orders): its number of parameters."""
        return sum(self.counts.rows(k) for k in range(1, self.order + 1))


class MLE(NGramLM):
    """Maximum likelihood, c(h w)/c(h); P = 0 for unseen n-grams and unseen contexts. Chapter 5."""

    name = "MLE"

    def _level(self, k, rows, ctx, p_lower):
        a, total, _ = self._lookup_level(k, rows, ctx)
        return np.divide(a, total, out=np.zeros_like(a), where=total > 0)  # (M,)


class AddK(NGramLM):
    """Add-k smoothing, (c(h w) + k) / (c(h) + k V) (Laplace for k = 1). Chapter 5."""

    name = "add-k"

    def __init__(self, tokens, order, vocab=None, *, k: float = 1.0, counts=None):
        if not k > 0:
            raise ValueError(f"k must be > 0, got {k!r}")
        self.k = float(k)
        super().__init__(tokens, order, vocab, counts=counts)

    def _level(self, k, rows, ctx, p_lower):
        a, total, _ = self._lookup_level(k, rows, ctx)
        return (a + self.k) / (total + self.k * self.V)  # (M,)


def _discount(a: np.ndarray) -> float:
    """D = n1 / (n1 + 2 n2) (Ney et al., 1994), n_r = number of n-grams counted r times."""
    n1, n2 = float((a == 1).sum()), float((a == 2).sum())
    return n1 / (n1 + 2 * n2) if n1 + n2 > 0 else 0.5


class KneserNey(NGramLM):
    r"""Interpolated Kneser-Ney (Chen & Goodman, 1999, eq. 24), one discount per order.

    P(w | h) = max(c(h w) - D, 0)/c(h) + D N1+(h •)/c(h) · P(w | h'), with continuation
    counts N1+(• h' w) in place of c(h' w) at every order below n, and the uniform 1/V
    below the unigrams. An unseen context backs off to P(w | h') entirely. Chapter 5.
    """

    name = "Kneser-Ney"

    def _level_counts(self, k: int) -> np.ndarray:
        if k == self.order:
            return self.counts.counts[k]
        # N1+(• v): how many distinct words precede the k-gram v
        return np.bincount(self.counts.suffix[k + 1], minlength=self.counts.rows(k))

    def __init__(self, tokens, order, vocab=None, *, counts=None) -> None:
        super().__init__(tokens, order, vocab, counts=counts)
        self.discounts = {k: _discount(self._a[k]) for k in range(1, order + 1)}

    def _level(self, k, rows, ctx, p_lower):
        D = self.discounts[k]
        a, total, types = self._lookup_level(k, rows, ctx)
        seen = total > 0
        safe = np.where(seen, total, 1.0)
        mixed = np.maximum(a - D, 0) / safe + D * types / safe * p_lower  # (M,)
        return np.where(seen, mixed, p_lower)  # (M,)


class Backoff(NGramLM):
    r"""Backoff with absolute discounting (Katz, 1987; Ney et al., 1994). Chapter 5.

    A seen n-gram gets (c(h w) - D)/c(h); an unseen one α(h) P(w | h'), with
    α(h) = (D N1+(h •)/c(h)) / (1 - Σ_{w seen after h} P(w | h')) so that the
    distribution sums to 1. Unigrams are interpolated with 1/V. A context whose seen
    words already hold all the lower-order mass keeps its maximum-likelihood estimate.
    """

    name = "backoff"

    def __init__(self, tokens, order, vocab=None, *, counts=None) -> None:
        super().__init__(tokens, order, vocab, counts=counts)
        self._prob, self._alpha = {}, {}
        for k in range(1, order + 1):
            D = _discount(self._a[k])
            a, ctx = self._a[k], self.counts.context[k]
            total = self._total[k][ctx]  # (R_k,)
            if k == 1:
                self._alpha[1] = D * self._types[1] / self._total[1]  # (1,)
                self._prob[1] = (a - D) / total + self._alpha[1][0] / self.V
                continue
            lower = self._prob[k - 1][self.counts.suffix[k]]  # (R_k,)
            covered = np.bincount(
                ctx, lower, minlength=self._total[k].size
            )  # (R_{k-1},)
            room = 1.0 - covered  # mass of the unseen words under the lower order
            full = room <= 1e-9  # contexts followed by (almost) every word
            left = D * self._types[k] / np.maximum(self._total[k], 1.0)
            self._alpha[k] = np.where(full, 0.0, left / np.maximum(room, 1e-300))
            self._prob[k] = np.where(full[ctx], a / total, (a - D) / total)  # (R_k,)

    def _level(self, k, rows, ctx, p_lower):
        seen_gram = rows >= 0
        if k == 1:
            return np.where(
                seen_gram,
                self._prob[1][np.maximum(rows, 0)],
                self._alpha[1][0] / self.V,
            )
        seen_ctx = (ctx >= 0) & (self._total[k][np.maximum(ctx, 0)] > 0)
        alpha = self._alpha[k][np.maximum(ctx, 0)]  # (M,)
        backed = np.where(seen_ctx, alpha * p_lower, p_lower)  # (M,)
        return np.where(seen_gram, self._prob[k][np.maximum(rows, 0)], backed)  # (M,)
