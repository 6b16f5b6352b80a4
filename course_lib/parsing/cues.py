r"""What informs an attachment: the lecture's cues, measured on a treebank. Chapter 4.

CS224N lecture 4 names four sources of evidence for dependency parsing: **bilexical
affinities** (discussion → issues is plausible), **distance** (most dependencies are
short), **intervening material** (dependencies rarely span an intervening verb or
punctuation) and **valency** (how many dependents of which kind a head takes). This module
measures the first three against a baseline that keeps everything but the cue:

- a *gold arc* is (sentence, head h, dependent d) of a tree, ROOT's arc left out; its
  length is |h − d| and its *interior* the words strictly between h and d;
- a *random arc* (:func:`random_arcs`) has the same signed offset d − h as a gold arc of
  the same sentence, placed uniformly among the positions where it fits: the same length
  and direction, but not chosen by the annotators;
- intervening material: :func:`interior_share`, the share of arcs whose interior holds a
  word of a given UPOS (VERB, PUNCT), gold against random;
- bilexical affinity: :func:`seen_pair_share`, the share of held-out arcs whose
  (head word, dependent word) pair is a training arc, gold against random; and
  :func:`pair_recurrence`, how often two words that form a frequent training arc are
  joined by that arc again when they meet in a held-out sentence, against the share of
  arcs among all word pairs at the same offsets (distance and direction held fixed).

Words are compared lower-cased. ``heads`` is the CoNLL-U list: heads[i − 1] is the head of
word i, 0 = ROOT. Shape legend: A arcs.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import NamedTuple, Protocol

import numpy as np

from course_lib.runtime import run_seed

__all__ = [
    "Recurrence",
    "arc_lengths",
    "gold_arcs",
    "interior_share",
    "pair_counts",
    "pair_recurrence",
    "random_arcs",
    "seen_pair_share",
]


class _Tree(Protocol):  # what a treebank sentence offers (course_lib.data.treebank)
    words: Sequence[str]
    upos: Sequence[str]
    heads: Sequence[int]


class Recurrence(NamedTuple):
    """How often frequent training pairs are arcs again: ``share`` of ``meetings``
    (ordered word pairs in the same sentence) that are the arc, against ``baseline``, the
    share of arcs among all word pairs at the same offsets."""

    meetings: int
    arcs: int
    share: float
    baseline: float


def _check_sentences(sentences) -> None:
    if isinstance(sentences, str) or not isinstance(sentences, Sequence):
        raise TypeError("sentences must be a list of treebank sentences")
    if len(sentences) == 0:
        raise ValueError("no sentences given")
    for s in sentences[:1]:
        if not all(hasattr(s, k) for k in ("words", "upos", "heads")):
            raise TypeError(
                "each sentence needs words, upos and heads (a course_lib.data Sentence), "
                f"got {type(s).__name__}"
            )


def gold_arcs(sentences: Sequence[_Tree]) -> list[tuple[int, int, int]]:
    """Every arc (sentence index, head, dependent) of the trees, ROOT's arcs left out."""
    _check_sentences(sentences)
    return [
        (k, h, d)
        for k, s in enumerate(sentences)
        for d, h in enumerate(s.heads, start=1)
        if h != 0
    ]


def arc_lengths(sentences: Sequence[_Tree]) -> np.ndarray:
    """|h − d| of every gold arc except ROOT's, (A,) int64: the distance cue."""
    arcs = gold_arcs(sentences)
    return np.array([abs(h - d) for _, h, d in arcs], dtype=np.int64)  # (A,)


def random_arcs(
    sentences: Sequence[_Tree],
    arcs: Sequence[tuple[int, int, int]] | None = None,
    *,
    seed: int = 0,
) -> list[tuple[int, int, int]]:
    """For each arc (k, h, d), a random (k, h', d') of sentence k with d' − h' = d − h.

    h' is uniform over the positions 1..n where both ends fit (the gold placement is one
    of them), so the random arcs have exactly the gold arcs' lengths and directions.
    ``arcs`` defaults to :func:`gold_arcs`; ``seed`` makes the draw reproducible.
    """
    arcs = gold_arcs(sentences) if arcs is None else arcs
    u = np.random.default_rng(run_seed(seed)).random(len(arcs))  # (A,)
    out = []
    for (k, h, d), r in zip(arcs, u, strict=True):
        n, o = len(sentences[k].heads), d - h
        lo, hi = max(1, 1 - o), min(n, n - o)  # h' + o must stay in 1..n
        h2 = lo + int(r * (hi - lo + 1))
        out.append((k, h2, h2 + o))
    return out


def interior_share(
    sentences: Sequence[_Tree],
    arcs: Sequence[tuple[int, int, int]],
    upos: str | Sequence[str],
) -> float:
    """Share of the arcs of length ≥ 2 whose interior holds a word tagged ``upos``.

    The interior of (k, h, d) is words min(h, d) + 1 … max(h, d) − 1 of sentence k; arcs
    of length 1 have none and are not counted. Returns a fraction in [0, 1].
    """
    tags = {upos} if isinstance(upos, str) else set(upos)
    hits = total = 0
    for k, h, d in arcs:
        a, b = sorted((h, d))
        if b - a < 2:
            continue
        total += 1
        hits += any(t in tags for t in sentences[k].upos[a : b - 1])  # words a+1..b-1
    if total == 0:
        raise ValueError(
            "no arc of length >= 2: nothing lies between any head and dependent"
        )
    return hits / total


def _pair(s: _Tree, h: int, d: int) -> tuple[str, str]:
    return s.words[h - 1].lower(), s.words[d - 1].lower()


def pair_counts(
    sentences: Sequence[_Tree], arcs: Sequence[tuple[int, int, int]] | None = None
) -> Counter:
    """How often each (head word, dependent word) pair, lower-cased, is an arc."""
    arcs = gold_arcs(sentences) if arcs is None else arcs
    return Counter(_pair(sentences[k], h, d) for k, h, d in arcs)


def seen_pair_share(
    counts: Counter, sentences: Sequence[_Tree], arcs: Sequence[tuple[int, int, int]]
) -> float:
    """Share of ``arcs`` whose (head word, dependent word) pair has a count in ``counts``
    (the training arcs of :func:`pair_counts`): bilexical knowledge that carries over."""
    if len(arcs) == 0:
        raise ValueError("no arcs to look up")
    return sum(_pair(sentences[k], h, d) in counts for k, h, d in arcs) / len(arcs)


def _arc_rate_by_offset(sentences: Sequence[_Tree]) -> dict[int, float]:
    """P(arc h → d | d − h = o) over all ordered word pairs (h, d) of the sentences."""
    pairs, arcs = Counter(), Counter()
    for s in sentences:
        n = len(s.heads)
        for o in range(1, n):
            pairs[o] += n - o
            pairs[-o] += n - o
        for d, h in enumerate(s.heads, start=1):
            if h:
                arcs[d - h] += 1
    return {o: arcs[o] / c for o, c in pairs.items()}


def pair_recurrence(
    counts: Counter, sentences: Sequence[_Tree], *, min_count: int = 10
) -> Recurrence:
    """Frequent training pairs met again: how often they are the arc, against distance.

    A *meeting* is an ordered pair of positions (i, j), i ≠ j, of a sentence whose words
    (w_i, w_j) form a pair seen at least ``min_count`` times as a training arc (head w_i,
    dependent w_j); it *recurs* when heads[j − 1] = i. The baseline averages, over the same
    meetings, the share of arcs among all ordered pairs of ``sentences`` at offset j − i.
    """
    if not isinstance(min_count, int) or min_count < 1:
        raise ValueError(f"min_count must be a positive int, got {min_count!r}")
    _check_sentences(sentences)
    dependents = defaultdict(set)
    for (h, d), c in counts.items():
        if c >= min_count:
            dependents[h].add(d)
    if not dependents:
        raise ValueError(
            f"no pair is counted {min_count} times or more; lower min_count"
        )
    rate = _arc_rate_by_offset(sentences)
    meetings = hits = 0
    expected = 0.0
    for s in sentences:
        words = [w.lower() for w in s.words]
        for i, w in enumerate(words, start=1):
            deps = dependents.get(w)
            if not deps:
                continue
            for j, v in enumerate(words, start=1):
                if j != i and v in deps:
                    meetings += 1
                    hits += s.heads[j - 1] == i
                    expected += rate[j - i]
    if meetings == 0:
        raise ValueError("no frequent pair meets in these sentences")
    return Recurrence(meetings, hits, hits / meetings, expected / meetings)
