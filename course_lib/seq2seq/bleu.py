r"""BLEU (Papineni et al., 2002): clipped n-gram precision with a brevity penalty. Chapter 7.

CS224N lecture 7; *Sequence Models* week 3. For a candidate c and references r_1..r_R,

    p_n = Σ_{n-grams g of c} min(count_c(g), max_k count_{r_k}(g)) / Σ_g count_c(g)   (clipped)
    BP  = 1 if c > r else exp(1 − r/c)      (r: the reference length closest to c)
    BLEU = BP · exp(Σ_{n=1..4} ¼ log p_n)

Corpus BLEU sums the clipped matches, the n-gram totals and the lengths over all sentences
*before* dividing; it is not the mean of sentence BLEUs. Sentence BLEU needs smoothing (a
single missing 4-gram makes it 0): the methods of Chen & Cherry (2014) as sacrebleu names them.
Inputs are pre-tokenized (lists of tokens); scores are on sacrebleu's 0-100 scale, and they
equal ``sacrebleu`` with ``tokenize="none"`` (tests/test_seq2seq_bleu.py).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from course_lib.checks import InputError, InputTypeError
from course_lib.compare import Comparison, compare_bootstrap

__all__ = [
    "BleuStats",
    "bleu_columns",
    "bleu_of_columns",
    "bleu_stats",
    "compare_bleu",
    "corpus_bleu",
    "ngrams",
    "sacrebleu_corpus_bleu",
    "sentence_bleu",
]

SMOOTHING = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
Tokens = Sequence[str]


def ngrams(tokens: Tokens, n: int) -> Counter:
    """The multiset of n-grams of ``tokens`` (tuples of n tokens)."""
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


@dataclass(frozen=True)
class BleuStats:
    """Sufficient statistics: clipped matches and totals per order, and the two lengths.

    ``matches[n-1] / totals[n-1]`` is the clipped precision p_n; ``cand_len`` is c and
    ``ref_len`` the closest reference length r (summed over a corpus).
    """

    matches: tuple[int, ...]
    totals: tuple[int, ...]
    cand_len: int
    ref_len: int

    def __add__(self, other: BleuStats) -> BleuStats:
        return BleuStats(
            tuple(a + b for a, b in zip(self.matches, other.matches, strict=True)),
            tuple(a + b for a, b in zip(self.totals, other.totals, strict=True)),
            self.cand_len + other.cand_len,
            self.ref_len + other.ref_len,
        )

    def precision(self, n: int) -> float:
        """The clipped n-gram precision p_n as a fraction (0 when there are no n-grams)."""
        return self.matches[n - 1] / self.totals[n - 1] if self.totals[n - 1] else 0.0

    @property
    def brevity_penalty(self) -> float:
        """BP = exp(1 − r/c) when c < r, else 1 (0 for an empty candidate)."""
        c, r = self.cand_len, self.ref_len
        if c >= r:
            return 1.0
        return math.exp(1 - r / c) if c > 0 else 0.0

    def score(
        self,
        smooth: str = "none",
        smooth_value: float | None = None,
        effective_order: bool = False,
    ) -> float:
        """BLEU on a 0-100 scale from the statistics (sacrebleu's ``compute_bleu``).

        smooth: ``"none"`` (p_n = 0 gives 0), ``"floor"`` (p_n = ε/total, ε = 0.1),
        ``"add-k"`` (p_n = (m + k)/(total + k) for n ≥ 2, k = 1), ``"exp"`` (the k-th zero
        precision becomes 1/(2^k total), NIST). effective_order: average only over the
        orders the candidate has n-grams of (for short sentences).
        """
        if smooth not in SMOOTHING:
            raise InputError(
                f"smooth must be one of {sorted(SMOOTHING)}; got {smooth!r}"
            )
        value = SMOOTHING[smooth] if smooth_value is None else smooth_value
        order = len(self.matches)
        if not any(self.matches):  # nothing matches at all: 0, whatever the smoothing
            return 0.0
        logs, zeros = [], 0
        for n in range(order):
            m, total = float(self.matches[n]), float(self.totals[n])
            if smooth == "add-k" and n > 0:
                m, total = m + value, total + value
            if total == 0:  # the candidate is shorter than n
                break
            if m > 0:
                p = m / total
            elif smooth == "exp":
                zeros += 1
                p = 1.0 / (2**zeros * total)
            elif smooth == "floor":
                p = value / total
            else:
                return 0.0
            logs.append(math.log(p))
        used = len(logs) if effective_order else order
        if len(logs) < used or used == 0:  # a missing order counts as p_n = 0
            return 0.0
        return 100.0 * self.brevity_penalty * math.exp(sum(logs[:used]) / used)


def _check_tokens(tokens: object, what: str) -> list[str]:
    if isinstance(tokens, str):
        raise InputTypeError(
            f"{what} must be a list of tokens, not a string; split it first "
            f"(got {tokens[:40]!r})"
        )
    if not isinstance(tokens, Sequence):
        raise InputTypeError(
            f"{what} must be a list of tokens; got {type(tokens).__name__}"
        )
    nested = [t for t in tokens if not isinstance(t, Hashable) or isinstance(t, list)]
    if nested:
        raise InputTypeError(
            f"{what} must be a list of tokens (str or int); it holds "
            f"{type(nested[0]).__name__}s such as {nested[0]!r:.40}: one level of "
            "nesting too many?"
        )
    return list(tokens)


def _check_references(references: object) -> None:
    """One candidate's references: a list of token lists, not one token list."""
    if isinstance(references, str) or not isinstance(references, Sequence):
        raise InputTypeError(
            "references must be a list of token lists (one per reference)"
        )
    words = [r for r in references if isinstance(r, str)]
    if (
        references
        and len(words) == len(references)
        and not any(len(w.split()) > 1 for w in words)
    ):
        raise InputTypeError(
            "references must be a list of references, each a list of tokens; got one "
            f"list of tokens {list(references[:4])}...: wrap it, [reference] (in "
            "corpus_bleu, one such list per candidate: [[ref] for ref in refs])"
        )


def bleu_stats(
    candidate: Tokens, references: Sequence[Tokens], max_n: int = 4
) -> BleuStats:
    """The clipped matches and totals of one candidate against its references.

    Counts are clipped by the largest count of the n-gram in any single reference; r is the
    reference length closest to the candidate's (the shorter one on a tie).
    """
    cand = _check_tokens(candidate, "candidate")
    _check_references(references)
    refs = [_check_tokens(r, "each reference") for r in references]
    if not refs:
        raise InputError(
            "BLEU needs at least one reference per candidate; got none for "
            f"candidate {' '.join(map(str, cand))[:60]!r}"
        )
    if not isinstance(max_n, int) or max_n < 1:
        raise InputError(f"max_n must be a positive int; got {max_n!r}")
    c = len(cand)
    ref_len = min((abs(len(r) - c), len(r)) for r in refs)[1]
    matches, totals = [], []
    for n in range(1, max_n + 1):
        cand_counts = ngrams(cand, n)
        best: Counter = Counter()
        for r in refs:
            best |= ngrams(r, n)  # | keeps the maximum count of each n-gram
        matches.append(sum(min(k, best[g]) for g, k in cand_counts.items()))
        totals.append(max(c - n + 1, 0))
    return BleuStats(tuple(matches), tuple(totals), c, ref_len)


def corpus_bleu(
    candidates: Sequence[Tokens],
    references: Sequence[Sequence[Tokens]],
    *,
    max_n: int = 4,
    smooth: str = "none",
    smooth_value: float | None = None,
) -> float:
    """Corpus BLEU (0-100): statistics summed over sentences, then one BLEU. Chapter 7.

    candidates: N token lists; references: N lists of references (each a token list),
    one list per candidate (several references allowed). Equals
    ``sacrebleu.corpus_bleu(..., tokenize="none", smooth_method=smooth)``.
    """
    if isinstance(candidates, str) or not isinstance(candidates, Sequence):
        raise InputTypeError("candidates must be a list of token lists")
    if not isinstance(references, Sequence) or len(references) != len(candidates):
        got = len(references) if isinstance(references, Sequence) else references
        raise InputError(
            f"references needs one list of references per candidate: "
            f"{len(candidates)} candidates, got {got!r}"
        )
    if not candidates:
        raise InputError("corpus_bleu needs at least one candidate; got none")
    total = None
    for cand, refs in zip(candidates, references, strict=True):
        s = bleu_stats(cand, refs, max_n)
        total = s if total is None else total + s
    return total.score(smooth, smooth_value)


def bleu_columns(
    candidates: Sequence[Tokens],
    references: Sequence[Sequence[Tokens]],
    *,
    max_n: int = 4,
) -> list[list[int]]:
    """Each sentence's sufficient statistics as columns of one value per sentence.

    The columns are the clipped matches of orders 1..max_n, the n-gram totals of orders
    1..max_n, the candidate lengths and the closest reference lengths (2 max_n + 2 columns):
    ``bleu_of_columns(*bleu_columns(c, r))`` is ``corpus_bleu(c, r)``, and a resample of the
    sentences (rows) is the corpus BLEU of those sentences, for a bootstrap over test
    sentences (:func:`compare_bleu`).
    """
    if len(references) != len(candidates):
        raise ValueError(
            f"one list of references per candidate: {len(candidates)} candidates, "
            f"{len(references)} reference lists"
        )
    stats = [
        bleu_stats(c, r, max_n) for c, r in zip(candidates, references, strict=True)
    ]
    return (
        [[s.matches[n] for s in stats] for n in range(max_n)]
        + [[s.totals[n] for s in stats] for n in range(max_n)]
        + [[s.cand_len for s in stats], [s.ref_len for s in stats]]
    )


def bleu_of_columns(*columns: Sequence[float], smooth: str = "none") -> float:
    """Corpus BLEU (0-100) of the sentences whose :func:`bleu_columns` are given: the columns
    are summed, then scored once, as :func:`corpus_bleu` does."""
    if len(columns) < 4 or len(columns) % 2:
        raise ValueError(
            f"need the 2 max_n + 2 columns of bleu_columns; got {len(columns)}"
        )
    k = (len(columns) - 2) // 2
    sums = [int(round(float(np.sum(c)))) for c in columns]
    return BleuStats(tuple(sums[:k]), tuple(sums[k : 2 * k]), sums[-2], sums[-1]).score(
        smooth
    )


def compare_bleu(
    candidates_a: Sequence[Tokens],
    candidates_b: Sequence[Tokens],
    references: Sequence[Sequence[Tokens]],
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    **style,
) -> Comparison:
    """The corpus BLEU of system A against system B on the same test sentences, with the
    standard error of the difference from a paired bootstrap over the sentences (Koehn,
    2004): a :class:`course_lib.compare.Comparison`, in BLEU points."""
    if len(candidates_a) != len(candidates_b):
        raise ValueError(
            f"both systems must translate the same sentences: {len(candidates_a)} and "
            f"{len(candidates_b)} candidates"
        )
    style = {"unit": "points"} | style
    return compare_bootstrap(
        bleu_of_columns,
        bleu_columns(candidates_a, references),
        bleu_columns(candidates_b, references),
        n_resamples=n_resamples,
        seed=seed,
        **style,
    )


def sentence_bleu(
    candidate: Tokens,
    references: Sequence[Tokens],
    *,
    max_n: int = 4,
    smooth: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = True,
) -> float:
    """Sentence BLEU (0-100), smoothed; the defaults are ``sacrebleu.sentence_bleu``'s."""
    return bleu_stats(candidate, references, max_n).score(
        smooth, smooth_value, effective_order
    )


def sacrebleu_corpus_bleu(
    candidates: Sequence[Tokens],
    references: Sequence[Sequence[Tokens]],
    *,
    smooth: str = "none",
) -> float:
    """The same corpus BLEU computed by ``sacrebleu`` (``tokenize="none"``), to set beside ours.

    Token lists are joined with spaces; sentences with fewer references than others get
    ``None`` in sacrebleu's reference streams.
    """
    import sacrebleu

    if len(references) != len(candidates):
        raise InputError(
            f"one list of references per candidate: {len(candidates)} candidates, "
            f"{len(references)} reference lists"
        )
    n_refs = max((len(r) for r in references), default=0)
    if n_refs == 0 or any(len(r) == 0 for r in references):
        raise InputError("every candidate needs at least one reference")
    streams = [
        [" ".join(refs[k]) if k < len(refs) else None for refs in references]
        for k in range(n_refs)
    ]
    hyps = [" ".join(c) for c in candidates]
    return sacrebleu.corpus_bleu(
        hyps, streams, tokenize="none", smooth_method=smooth, force=True
    ).score
