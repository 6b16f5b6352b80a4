"""Attachment cues: arc lengths, random arcs of the same shape, interiors, word pairs."""

from collections import Counter
from typing import NamedTuple

import numpy as np
import pytest

from course_lib.parsing.cues import (
    arc_lengths,
    gold_arcs,
    interior_share,
    pair_counts,
    pair_recurrence,
    random_arcs,
    seen_pair_share,
)


class S(NamedTuple):
    words: tuple
    upos: tuple
    heads: tuple


# "I ate fish ." and "Fish , I ate ." (fish: obj, fronted)
A = S(("I", "ate", "fish", "."), ("PRON", "VERB", "NOUN", "PUNCT"), (2, 0, 2, 2))
B = S(
    ("Fish", ",", "I", "ate", "."),
    ("NOUN", "PUNCT", "PRON", "VERB", "PUNCT"),
    (4, 4, 4, 0, 4),
)


def test_gold_arcs_and_lengths():
    assert gold_arcs([A]) == [(0, 2, 1), (0, 2, 3), (0, 2, 4)]
    assert arc_lengths([A, B]).tolist() == [1, 1, 2, 3, 2, 1, 1]


def test_random_arcs_keep_offsets_and_are_uniform():
    arcs = gold_arcs([A, B])
    for seed in range(20):
        for (k, h, d), (k2, h2, d2) in zip(arcs, random_arcs([A, B], arcs, seed=seed)):
            n = len((A, B)[k].heads)
            assert k2 == k and d2 - h2 == d - h and 1 <= h2 <= n and 1 <= d2 <= n
    # the arc ate(2) -> .(4) of A, offset +2, fits at h' = 1 or 2: about half each
    draws = Counter(random_arcs([A], [(0, 2, 4)] * 4000, seed=1))
    assert set(draws) == {(0, 1, 3), (0, 2, 4)}
    assert abs(draws[(0, 1, 3)] / 4000 - 0.5) < 0.03
    assert random_arcs([A], seed=3) == random_arcs([A], seed=3)


def test_interior_share_by_hand():
    arcs = gold_arcs([A, B])  # length >= 2: A 2->4 (fish), B 4->1 (, I), 4->2 (I)
    assert interior_share([A, B], arcs, "NOUN") == pytest.approx(1 / 3)
    assert interior_share([A, B], arcs, "PUNCT") == pytest.approx(1 / 3)
    assert interior_share([A, B], arcs, ("PRON", "NOUN")) == 1.0
    assert interior_share([A, B], arcs, "VERB") == 0.0
    with pytest.raises(ValueError, match="length >= 2"):
        interior_share([A], [(0, 2, 1)], "VERB")


def test_pair_counts_and_seen_share():
    counts = pair_counts([A, B])
    assert counts[("ate", "i")] == 2 and counts[("ate", "fish")] == 2
    assert counts[("ate", ".")] == 2 and counts[("ate", ",")] == 1
    assert (
        seen_pair_share(counts, [A], [(0, 2, 1), (0, 3, 4)]) == 0.5
    )  # fish -> . unseen
    with pytest.raises(ValueError, match="no arcs"):
        seen_pair_share(counts, [A], [])


def _brute_recurrence(counts, sentences, min_count):
    """Every ordered pair of every sentence, checked directly."""
    pairs, arcs = Counter(), Counter()
    meet = hit = 0
    offsets = []
    for s in sentences:
        n = len(s.heads)
        for i in range(1, n + 1):
            for j in range(1, n + 1):
                if i == j:
                    continue
                pairs[j - i] += 1
                arcs[j - i] += s.heads[j - 1] == i
                if (
                    counts[(s.words[i - 1].lower(), s.words[j - 1].lower())]
                    >= min_count
                ):
                    meet += 1
                    hit += s.heads[j - 1] == i
                    offsets.append(j - i)
    base = np.mean([arcs[o] / pairs[o] for o in offsets])
    return meet, hit, base


def test_pair_recurrence_against_brute_force():
    rng = np.random.default_rng(0)
    words = ["a", "b", "c", "d"]
    sentences = []
    for _ in range(30):
        n = int(rng.integers(2, 8))
        # any head but the word itself (the counting needs no tree)
        heads = [
            int(rng.choice([h for h in range(n + 1) if h != d]))
            for d in range(1, n + 1)
        ]
        ws = tuple(words[int(x)] for x in rng.integers(0, 4, n))
        sentences.append(S(ws, ("X",) * n, tuple(heads)))
    counts = pair_counts(sentences[:15])
    for m in (1, 2, 3):
        r = pair_recurrence(counts, sentences[15:], min_count=m)
        meet, hit, base = _brute_recurrence(counts, sentences[15:], m)
        assert (r.meetings, r.arcs) == (meet, hit)
        assert r.share == pytest.approx(hit / meet) and r.baseline == pytest.approx(
            base
        )


def test_bad_input():
    with pytest.raises(TypeError, match="treebank sentences"):
        gold_arcs("I ate fish")
    with pytest.raises(TypeError, match="words, upos and heads"):
        gold_arcs([("I", "ate")])
    with pytest.raises(ValueError, match="no sentences"):
        arc_lengths([])
    with pytest.raises(ValueError, match="min_count"):
        pair_recurrence(Counter(), [A], min_count=0)
    with pytest.raises(ValueError, match="lower min_count"):
        pair_recurrence(pair_counts([A]), [A], min_count=5)
