"""Training a WordPiece vocabulary with the likelihood score. Chapter 9.

BPE merges the pair with the highest count. WordPiece (Schuster & Nakajima, 2012)
merges the pair that most raises the likelihood of the training data under a unigram
model of the pieces, which comes down to the score

    score(a, b) = count(ab) / (count(a) · count(b)),

the pair's count divided by the counts of its parts: a pair whose parts are rare
elsewhere wins over one made of very common pieces (``##s`` follows everything).
Words start as characters, non-initial ones written ``##c``; merging ``a`` with
``##b`` gives ``ab`` (``##ab`` when ``a`` was a continuation).

Pair counts are kept up to date incrementally as in ``bpe_train``. The score also depends
on the counts of the parts, so after a merge of (a, b) -> ab every pair that contains a, b
or ab is pushed again with its new score into a max-heap (an index piece -> its pairs
finds them), and an entry whose score is no longer current is skipped when it surfaces.
Ties go to the smallest (left id, right id), ids given as in ``bpe_train`` (specials,
then the initial pieces sorted by code point, then one per merge).
HF ``tokenizers``' WordPiece trainer is
BPE's (raw counts) with the prefix; it is not this score.
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping

from course_lib.subwords.wordpiece import WordPiece

__all__ = ["pair_scores", "train_wordpiece"]


def _initial(word_counts: Mapping[str, int], prefix: str) -> dict[str, list[str]]:
    return {w: [w[0], *(prefix + c for c in w[1:])] for w in word_counts}


def _join(a: str, b: str, prefix: str) -> str:
    return a + b.removeprefix(prefix)


def pair_scores(
    word_counts: Mapping[str, int], prefix: str = "##"
) -> list[tuple[tuple[str, str], int, float]]:
    """Every adjacent pair of the first step with BPE's count and WordPiece's score.

    Returns [((a, b), count(ab), count(ab) / (count(a) · count(b)))], highest count first
    (ties by the pair), so that the two rankings can be set side by side.
    """
    if not word_counts:
        raise ValueError("word_counts is empty: nothing to score")
    units: Counter[str] = Counter()
    pairs: Counter[tuple[str, str]] = Counter()
    for word, pieces in _initial(word_counts, prefix).items():
        f = word_counts[word]
        units.update({p: 0 for p in pieces})
        for p in pieces:
            units[p] += f
        for pair in zip(pieces, pieces[1:]):
            pairs[pair] += f
    rows = [(p, c, c / (units[p[0]] * units[p[1]])) for p, c in pairs.items()]
    return sorted(rows, key=lambda r: (-r[1], r[0]))


def train_wordpiece(
    word_counts: Mapping[str, int],
    vocab_size: int,
    *,
    min_frequency: int = 0,
    special_tokens: Iterable[str] = ("[UNK]",),
    unk_token: str = "[UNK]",
    prefix: str = "##",
) -> WordPiece:
    """Learn a WordPiece vocabulary of ``vocab_size`` pieces with the likelihood score.

    special_tokens: the first ids, in order; must contain ``unk_token``.
    min_frequency: the least count(ab) a merge needs.
    Returns a ``WordPiece`` model (vocabulary in id order). Deterministic.
    """
    if not isinstance(word_counts, Mapping) or not word_counts:
        raise ValueError("word_counts must be a non-empty mapping word -> count")
    if any(not (isinstance(w, str) and w) for w in word_counts):
        raise ValueError("word_counts needs non-empty str words")
    specials = list(dict.fromkeys(special_tokens))
    if unk_token not in specials:
        raise ValueError(f"unk_token {unk_token!r} must be one of {specials}")
    words = _initial(word_counts, prefix)
    vocab = specials + sorted(
        {p for pieces in words.values() for p in pieces} - set(specials)
    )
    if vocab_size < len(vocab):
        raise ValueError(
            f"vocab_size={vocab_size} is below the {len(vocab)} pieces the specials and "
            "the alphabet need already; raise vocab_size"
        )
    ids = {p: i for i, p in enumerate(vocab)}
    seqs = [[ids[p] for p in pieces] for pieces in words.values()]
    freqs = list(word_counts.values())
    units: Counter[int] = Counter()
    pairs: dict[tuple[int, int], int] = defaultdict(int)
    where: dict[tuple[int, int], set[int]] = defaultdict(set)
    for w, (s, f) in enumerate(zip(seqs, freqs, strict=True)):
        for u in s:
            units[u] += f
        for pair in zip(s, s[1:]):
            pairs[pair] += f
            where[pair].add(w)
    partners = _partners(pairs)  # piece -> the pairs it is part of
    heap: list = []  # (-score, a, b): the best score first, then the smallest ids
    _push(heap, pairs, units, list(pairs))
    while len(vocab) < vocab_size and heap:
        neg, a, b = heapq.heappop(heap)
        c = pairs.get((a, b), 0)
        if c < 1 or -neg != c / (units[a] * units[b]) or c < min_frequency:
            continue  # gone, stale (a fresher entry is in the heap) or too rare
        piece = _join(vocab[a], vocab[b], prefix)
        new = ids.get(piece)
        if new is None:
            new = ids[piece] = len(vocab)
            vocab.append(piece)
        for w in sorted(where.pop((a, b))):
            _merge(seqs[w], freqs[w], a, b, new, w, pairs, units, where, partners)
        pairs.pop((a, b))
        # every score that changed involves a, b or new: push those pairs afresh
        for u in (a, b, new):  # drop the pairs that died on the way
            partners[u] = {p for p in partners[u] if pairs.get(p, 0) > 0}
        _push(heap, pairs, units, sorted(partners[a] | partners[b] | partners[new]))
    return WordPiece(vocab=tuple(vocab), unk_token=unk_token, prefix=prefix)


def _partners(pairs) -> dict[int, set[tuple[int, int]]]:
    partners: dict[int, set[tuple[int, int]]] = defaultdict(set)
    for a, b in pairs:
        partners[a].add((a, b))
        partners[b].add((a, b))
    return partners


def _push(heap, pairs, units, candidates) -> None:
    """Push each live pair with its current score count(ab) / (count(a)·count(b))."""
    for a, b in candidates:
        c = pairs.get((a, b), 0)
        if c > 0:
            heapq.heappush(heap, (-c / (units[a] * units[b]), a, b))


def _merge(s, f, a, b, new, w, pairs, units, where, partners):
    """Merge (a, b) -> new in word ``s`` (count f), keeping pair and piece counts exact."""
    i = 0
    while i < len(s) - 1:
        if s[i] == a and s[i + 1] == b:
            if i > 0:
                pairs[s[i - 1], a] -= f
                pairs[s[i - 1], new] += f
                where[s[i - 1], new].add(w)
                partners[s[i - 1]].add((s[i - 1], new))
                partners[new].add((s[i - 1], new))
            s[i : i + 2] = [new]
            units[a] -= f
            units[b] -= f
            units[new] += f
            if i < len(s) - 1:
                pairs[b, s[i + 1]] -= f
                pairs[new, s[i + 1]] += f
                where[new, s[i + 1]].add(w)
                partners[new].add((new, s[i + 1]))
                partners[s[i + 1]].add((new, s[i + 1]))
        i += 1
