r"""IBM Model 1 (Brown et al., 1993), trained by EM: word alignment before neural MT. Chapter 7.

CS224N lecture 7 (statistical MT, alignment as a latent variable). The noisy channel
translates a foreign sentence f into English by ê = argmax_e P(f | e) P(e); Model 1 is the
simplest translation model P(f | e). Every target word f_j (j = 1..m) picks a source position
a_j ∈ {0..l} (0 is the NULL word) uniformly, then is drawn from t(f_j | e_{a_j}):

    P(f | e) = ε / (l + 1)^m · Π_j Σ_{i=0..l} t(f_j | e_i)                      (Koehn, 2010, 4.2)

EM: the E-step's alignment posterior is P(a_j = i | f, e) = t(f_j|e_i) / Σ_{i'} t(f_j|e_{i'});
the M-step sets t(f|e) = c(f, e) / Σ_f' c(f', e) from the expected counts c. The
log-likelihood never decreases from one iteration to the next.

The posterior of each target word over the source words is an (m, l) matrix whose rows sum
to one (with the NULL column), the same shape as a neural model's attention, and the chapter
shows both in one widget. The implementation is sparse and vectorised: only the word pairs
that co-occur in some sentence pair have a t(f|e), and one EM iteration is a few
``index_add_`` calls over all (sentence, i, j) triples. Shape letters: P co-occurring word
pairs, N triples (i, j) over all sentence pairs, M target tokens over all sentence pairs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch
from torch import Tensor

__all__ = ["NULL", "IBMModel1", "train_ibm_model1"]

NULL = "<null>"


def _check_pairs(pairs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> None:
    if isinstance(pairs, str) or not isinstance(pairs, Sequence) or not pairs:
        raise ValueError(
            "pairs must be a non-empty list of (source tokens, target tokens); "
            f"got {type(pairs).__name__}"
        )
    for k, pair in enumerate(pairs):
        if len(pair) != 2:
            raise ValueError(f"pair {k} must be (source, target); got {pair!r}")
        src, tgt = pair
        if isinstance(src, str) or isinstance(tgt, str):
            raise TypeError(f"pair {k}: give token lists, not strings (split them)")
        if len(src) == 0 or len(tgt) == 0:
            raise ValueError(
                f"pair {k} has an empty sentence ({len(src)} source, {len(tgt)} target "
                "tokens); remove empty sentences before training"
            )


def _check_log_prob(target: Sequence[str], epsilon: float) -> None:
    if len(target) == 0:
        raise ValueError("log_prob needs a non-empty target sentence f")
    if not epsilon > 0:
        raise ValueError(f"epsilon must be > 0; got {epsilon!r}")


@dataclass
class IBMModel1:
    """A trained Model 1: t(f | e) over the co-occurring word pairs, and the EM history.

    ``src_words``/``tgt_words``: the vocabularies (``src_words[0]`` is NULL);
    ``pair_src``, ``pair_tgt``: (P,) word indices of each co-occurring pair; ``t``: (P,)
    their probabilities t(f | e); ``log_likelihoods``: the corpus log-likelihood
    Σ log P(f | e) before each EM iteration and after the last one.
    """

    src_words: list[str]
    tgt_words: list[str]
    pair_src: Tensor
    pair_tgt: Tensor
    t: Tensor
    log_likelihoods: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._src_index = {w: i for i, w in enumerate(self.src_words)}
        self._tgt_index = {w: i for i, w in enumerate(self.tgt_words)}
        n_t = len(self.tgt_words)
        keys = self.pair_src * n_t + self.pair_tgt  # (P,)
        self._lookup = {int(k): p for p, k in enumerate(keys.tolist())}

    def prob(self, f: str, e: str) -> float:
        """t(f | e); 0 for a pair never seen together (or an unknown word)."""
        i, j = self._src_index.get(e), self._tgt_index.get(f)
        if i is None or j is None:
            return 0.0
        p = self._lookup.get(i * len(self.tgt_words) + j)
        return 0.0 if p is None else float(self.t[p])

    def table(self, e: str, top: int = 5) -> list[tuple[str, float]]:
        """The ``top`` most probable translations f of the source word e, with t(f | e)."""
        i = self._src_index.get(e)
        if i is None:
            raise KeyError(f"{e!r} is not a source word of this model")
        rows = (self.pair_src == i).nonzero().flatten()  # (K,)
        order = self.t[rows].argsort(descending=True)[:top]  # (top,)
        return [
            (self.tgt_words[int(self.pair_tgt[rows[k]])], float(self.t[rows[k]]))
            for k in order
        ]

    def alignment(
        self, source: Sequence[str], target: Sequence[str], *, with_null: bool = False
    ) -> Tensor:
        """The posterior P(a_j = i | f, e): a (m, l) matrix (m, l + 1 with the NULL column).

        Rows sum to 1 over NULL and the source words; without ``with_null`` the NULL
        column is dropped, so a row sums to 1 − P(a_j = NULL). Unknown pairs get t = 0,
        and a target word with no known translation at all gets a uniform row.
        """
        if len(source) == 0 or len(target) == 0:
            raise ValueError(
                f"alignment needs non-empty sentences; got {len(source)} source and "
                f"{len(target)} target tokens"
            )
        t = self.t_matrix(source, target)  # (m, l+1)
        norm = t.sum(-1, keepdim=True)  # (m, 1)
        post = torch.where(norm > 0, t / norm.clamp_min(1e-300), 1.0 / t.size(1))
        return post if with_null else post[:, 1:]  # (m, l+1) or (m, l)

    def t_matrix(
        self, source: Sequence[str], target: Sequence[str], *, floor: float = 0.0
    ) -> Tensor:
        """t(f_j | e_i) for the m target words and NULL + the l source words: (m, l+1).

        float64; a pair never seen together has t = 0. A target word this model never
        saw gets ``floor`` in its whole row (0: the model as trained).
        """
        if isinstance(source, str) or isinstance(target, str):
            raise TypeError("give token lists, not strings (split them)")
        if not floor >= 0:
            raise ValueError(f"floor must be >= 0; got {floor!r}")
        src = [NULL, *source]
        t = torch.tensor(
            [[self.prob(f, e) for e in src] for f in target], dtype=torch.float64
        ).reshape(len(target), len(src))  # (m, l+1)
        unseen = torch.tensor([f not in self._tgt_index for f in target], dtype=bool)
        t[unseen] = floor  # (m, l+1)
        return t

    def log_prob(
        self,
        source: Sequence[str],
        target: Sequence[str],
        *,
        epsilon: float = 1.0,
        floor: float = 0.0,
    ) -> float:
        r"""log P(f | e) = log ε − m log(l + 1) + Σ_j log Σ_{i=0..l} t(f_j | e_i).

        Model 1's likelihood of the target f (m ≥ 1 words) given the source e (l ≥ 0
        words, and NULL) (Brown et al., 1993, section 4.1; Koehn, 2010, section 4.2);
        with ε = 1, its sum over the training pairs is ``log_likelihoods[-1]``. A target
        word the model never saw has t = 0 under every e (P = 0, −inf) unless ``floor``
        (see :meth:`t_matrix`) gives it the same t under every e.
        """
        _check_log_prob(target, epsilon)
        t = self.t_matrix(source, target, floor=floor)  # (m, l+1)
        m, l_plus_1 = t.shape
        per_word = t.sum(-1).log()  # (m,) log Σ_i t(f_j | e_i)
        return math.log(epsilon) - m * math.log(l_plus_1) + float(per_word.sum())

    def best_alignment(self, source: Sequence[str], target: Sequence[str]) -> list[int]:
        """Viterbi alignment: for each target word, argmax_i t(f_j | e_i) (0 = NULL)."""
        return self.alignment(source, target, with_null=True).argmax(-1).tolist()


def train_ibm_model1(
    pairs: Sequence[tuple[Sequence[str], Sequence[str]]],
    iterations: int = 10,
    *,
    device: torch.device | str | None = None,
) -> IBMModel1:
    """Train Model 1 by EM from a uniform t(f | e) on (source, target) token lists.

    pairs: (e, f) sentence pairs; the model learns t(f | e), aligning each target word to a
    source word or NULL. Runs ``iterations`` EM iterations (≥ 1) in float64 on ``device``.
    Returns the :class:`IBMModel1`, with the log-likelihood before every iteration and
    after the last (a non-decreasing sequence). Chapter 7.
    """
    _check_pairs(pairs)
    if not isinstance(iterations, int) or iterations < 1:
        raise ValueError(f"iterations must be a positive int; got {iterations!r}")
    src_words = [NULL, *sorted({w for e, _ in pairs for w in e} - {NULL})]
    tgt_words = sorted({w for _, f in pairs for w in f})
    s_index = {w: i for i, w in enumerate(src_words)}
    f_index = {w: i for i, w in enumerate(tgt_words)}
    n_t = len(tgt_words)
    # every (sentence, i, j) triple: the source word, the target word, the target token
    tri_e, tri_f, tri_tok, m_tokens, log_norm = [], [], [], 0, 0.0
    for e, f in pairs:
        e_ids = [0] + [s_index[w] for w in e]
        for fw in f:
            j = f_index[fw]
            tri_e.extend(e_ids)
            tri_f.extend([j] * len(e_ids))
            tri_tok.extend([m_tokens] * len(e_ids))
            m_tokens += 1
        log_norm += len(f) * math.log(len(e) + 1)
    e_ids = torch.tensor(tri_e, device=device)  # (N,)
    f_ids = torch.tensor(tri_f, device=device)  # (N,)
    tok = torch.tensor(tri_tok, device=device)  # (N,)
    keys, pair_of = torch.unique(e_ids * n_t + f_ids, return_inverse=True)  # (P,), (N,)
    pair_src, pair_tgt = keys // n_t, keys % n_t  # (P,), (P,)
    n_pairs, n_src = keys.numel(), len(src_words)
    t = torch.full((n_pairs,), 1.0 / n_t, dtype=torch.float64, device=device)  # (P,)
    history = []
    for step in range(iterations + 1):
        p = t[pair_of]  # (N,) t(f_j | e_i) of every triple
        denom = torch.zeros(m_tokens, dtype=torch.float64, device=device)
        denom.index_add_(0, tok, p)  # (M,) Σ_i t(f_j | e_i)
        history.append(float(denom.log().sum()) - log_norm)
        if step == iterations:
            break
        post = p / denom[tok]  # (N,) E-step: P(a_j = i | e, f)
        counts = torch.zeros(n_pairs, dtype=torch.float64, device=device)
        counts.index_add_(0, pair_of, post)  # (P,) expected c(f, e)
        per_e = torch.zeros(n_src, dtype=torch.float64, device=device)
        per_e.index_add_(0, pair_src, counts)  # (S,) Σ_f c(f, e)
        t = counts / per_e[pair_src]  # (P,) M-step
    return IBMModel1(
        src_words, tgt_words, pair_src.cpu(), pair_tgt.cpu(), t.cpu(), history
    )
