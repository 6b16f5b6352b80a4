"""IBM Model 1: EM against a plain dictionary implementation, likelihood, normalisation."""

from __future__ import annotations

import math
import random
from collections import defaultdict

import pytest
import torch

from course_lib.seq2seq.ibm_model1 import NULL, train_ibm_model1

# Koehn (2010), section 4.2.4: German -> English; here e = German source, f = English target
KOEHN = [
    ("das haus".split(), "the house".split()),
    ("das buch".split(), "the book".split()),
    ("ein buch".split(), "a book".split()),
]


def _reference_em(pairs, iterations):
    """The textbook's pseudo-code, word by word with dictionaries (Koehn, Figure 4.3)."""
    f_vocab = {w for _, f in pairs for w in f}
    t = defaultdict(lambda: 1.0 / len(f_vocab))
    for _ in range(iterations):
        count, total = defaultdict(float), defaultdict(float)
        for e, f in pairs:
            e = [NULL, *e]
            for fw in f:
                s_total = sum(t[(fw, ew)] for ew in e)
                for ew in e:
                    c = t[(fw, ew)] / s_total
                    count[(fw, ew)] += c
                    total[ew] += c
        t = defaultdict(
            float, {(fw, ew): c / total[ew] for (fw, ew), c in count.items()}
        )
    return t


def _random_pairs(seed, n=40):
    rng = random.Random(seed)
    lex = {f"e{i}": f"f{i}" for i in range(12)}
    pairs = []
    for _ in range(n):
        e = rng.choices(sorted(lex), k=rng.randint(1, 6))
        f = [lex[w] for w in e]
        rng.shuffle(f)
        if rng.random() < 0.5:
            f.insert(rng.randrange(len(f) + 1), "fx")  # a word NULL can explain
        pairs.append((e, f))
    return pairs


@pytest.mark.parametrize("pairs", [KOEHN, _random_pairs(0), _random_pairs(1)])
def test_em_equals_the_dictionary_implementation(pairs):
    ours = train_ibm_model1(pairs, iterations=5)
    ref = _reference_em(pairs, 5)
    for (fw, ew), p in ref.items():
        assert ours.prob(fw, ew) == pytest.approx(p, abs=1e-12)
    assert ours.prob("never", "seen") == 0.0


def test_likelihood_never_decreases_and_matches_the_formula():
    pairs = _random_pairs(2, 80)
    model = train_ibm_model1(pairs, iterations=12)
    ll = model.log_likelihoods
    assert len(ll) == 13
    assert all(b >= a - 1e-9 for a, b in zip(ll, ll[1:], strict=False))
    assert ll[-1] > ll[0]
    # the last value is Σ log P(f|e) = Σ_j log Σ_i t(f_j|e_i) − m log(l+1)
    want = 0.0
    for e, f in pairs:
        for fw in f:
            want += math.log(sum(model.prob(fw, ew) for ew in [NULL, *e]))
        want -= len(f) * math.log(len(e) + 1)
    assert ll[-1] == pytest.approx(want, rel=1e-10)


def test_translation_probabilities_sum_to_one_for_every_source_word():
    model = train_ibm_model1(_random_pairs(3), iterations=4)
    sums = torch.zeros(len(model.src_words), dtype=torch.float64)
    sums.index_add_(0, model.pair_src, model.t)
    torch.testing.assert_close(sums, torch.ones_like(sums), rtol=0, atol=1e-12)


def test_koehn_example_learns_the_lexicon_and_aligns():
    model = train_ibm_model1(KOEHN, iterations=20)
    assert model.table("haus", 1)[0][0] == "house"
    assert model.table("das", 1)[0][0] == "the"
    assert model.best_alignment("das buch".split(), "the book".split()) == [1, 2]
    a = model.alignment("das haus".split(), "the house".split(), with_null=True)
    assert a.shape == (2, 3)
    torch.testing.assert_close(a.sum(-1), torch.ones(2, dtype=torch.float64))
    assert model.alignment("das haus".split(), "the house".split()).shape == (2, 2)


def test_bad_input():
    with pytest.raises(ValueError, match="empty sentence"):
        train_ibm_model1([([], ["a"])])
    with pytest.raises(ValueError, match="non-empty list"):
        train_ibm_model1([])
    with pytest.raises(TypeError, match="not strings"):
        train_ibm_model1([("das haus", "the house")])
    with pytest.raises(ValueError, match="iterations must be"):
        train_ibm_model1(KOEHN, iterations=0)
    model = train_ibm_model1(KOEHN, iterations=1)
    with pytest.raises(ValueError, match="non-empty"):
        model.alignment([], ["the"])
