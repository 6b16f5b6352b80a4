"""The noisy channel: Model 1's log P(f | e), the sentence bigram LM, the beam against
exhaustive search, every score against the same sum written out by hand."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest

from course_lib.lm.ngram import AddK, KneserNey
from course_lib.lm.scoring import sentence_log_probs
from course_lib.seq2seq.ibm_model1 import NULL, train_ibm_model1
from course_lib.seq2seq.noisy_channel import (
    BOUNDARY,
    NoisyChannel,
    lm_log_prob,
    train_sentence_lm,
)

# (English, French): Model 1 learns t(f | e), the channel of French given English
TOY = [
    ("the cat".split(), "le chat".split()),
    ("the dog".split(), "le chien".split()),
    ("a cat".split(), "un chat".split()),
    ("a dog".split(), "un chien".split()),
    ("the black cat".split(), "le chat noir".split()),
    ("the cat sleeps".split(), "le chat dort".split()),
    ("a dog sleeps".split(), "un chien dort".split()),
    ("the black dog sleeps".split(), "le chien noir dort".split()),
]
FRENCH = ["le chien dort", "un chat noir", "le chat", "un chien noir dort", "chat"]


def _random_pairs(seed: int, n: int = 60):
    rng = random.Random(seed)
    lex = {f"e{i}": [f"f{i}", f"g{i % 3}"] for i in range(8)}
    pairs = []
    for _ in range(n):
        e = rng.choices(sorted(lex), k=rng.randint(1, 5))
        pairs.append((e, [rng.choice(lex[w]) for w in e]))
    return pairs


def _channel(pairs, drop=False, k=None):
    ibm = train_ibm_model1(pairs, iterations=8)
    lm = train_sentence_lm([e for e, _ in pairs], k=k)
    return NoisyChannel(ibm, lm, drop=drop)


def _model1_by_hand(ibm, e, f):
    """ε / (l+1)^m · Π_j Σ_i t(f_j | e_i), ε = 1, as a log."""
    total = 0.0
    for fw in f:
        total += math.log(sum(ibm.prob(fw, ew) for ew in [NULL, *e]))
    return total - len(f) * math.log(len(e) + 1)


def _add_k_by_hand(sentences, e, k):
    """Σ_i log (c(e_{i-1} e_i) + k) / (c(e_{i-1}) + k V), counted on the stream."""
    stream = [BOUNDARY] + [w for s in sentences for w in (*s, BOUNDARY)]
    V = len(set(stream)) + 1  # the words, <eos> and <unk>
    uni = Counter(stream[:-1])  # contexts: every token that has a successor
    bi = Counter(zip(stream, stream[1:]))
    words = [BOUNDARY, *e, BOUNDARY]
    return sum(
        math.log((bi[(a, b)] + k) / (uni[a] + k * V)) for a, b in zip(words, words[1:])
    )


@pytest.mark.parametrize("pairs", [TOY, _random_pairs(0), _random_pairs(1)])
def test_model1_log_prob_sums_to_the_training_likelihood(pairs):
    ibm = train_ibm_model1(pairs, iterations=5)
    ours = sum(ibm.log_prob(e, f) for e, f in pairs)
    assert ours == pytest.approx(ibm.log_likelihoods[-1], rel=1e-12)
    for e, f in pairs[:5]:
        assert ibm.log_prob(e, f) == pytest.approx(_model1_by_hand(ibm, e, f))
        assert ibm.log_prob(e, f, epsilon=0.5) == pytest.approx(
            _model1_by_hand(ibm, e, f) + math.log(0.5)
        )


def test_model1_unknown_word_is_zero_or_the_floor():
    ibm = train_ibm_model1(TOY, iterations=5)
    assert ibm.log_prob(["the", "cat"], ["le", "zorglub"]) == -math.inf
    floored = ibm.log_prob(["the", "cat"], ["le", "zorglub"], floor=1e-3)
    by_hand = math.log(sum(ibm.prob("le", w) for w in [NULL, "the", "cat"]) * 3e-3)
    assert floored == pytest.approx(by_hand - 2 * math.log(3))
    assert ibm.log_prob([], ["le"]) == pytest.approx(math.log(ibm.prob("le", NULL)))
    with pytest.raises(ValueError, match="non-empty target"):
        ibm.log_prob(["the"], [])
    with pytest.raises(ValueError, match="epsilon"):
        ibm.log_prob(["the"], ["le"], epsilon=0)


@pytest.mark.parametrize("k", [None, 0.5])
def test_the_lm_distribution_sums_to_one(k):
    lm = train_sentence_lm([e for e, _ in TOY], k=k)
    assert isinstance(lm, KneserNey if k is None else AddK)
    assert BOUNDARY in lm.vocab and lm.order == 2
    for context in ([], [BOUNDARY], ["the"], ["sleeps"], ["zorglub"]):
        p = lm.distribution(context)  # (V,)
        assert p.shape == (len(lm.vocab),) and np.all(p > 0)
        assert p.sum() == pytest.approx(1.0, abs=1e-12)


def test_sentence_log_prob_by_hand_and_against_chapter_5():
    sentences = [e for e, _ in TOY]
    lm = train_sentence_lm(sentences, k=0.5)
    b = lm.vocab.index(BOUNDARY)
    for e in (["the", "cat"], ["a", "black", "dog", "sleeps"], [], ["zorglub"]):
        ours = lm_log_prob(lm, e)
        assert ours == pytest.approx(_add_k_by_hand(sentences, e, 0.5))
        ref = sentence_log_probs(lm, [lm.encode(e)], bos=b, eos=b)
        assert ours == pytest.approx(float(ref[0]))
    kn = train_sentence_lm(sentences)
    ref = sentence_log_probs(kn, [kn.encode(["the", "dog"])], bos=b, eos=b)
    assert lm_log_prob(kn, ["the", "dog"]) == pytest.approx(float(ref[0]))


def test_score_is_log_p_f_given_e_plus_log_p_e_by_hand():
    nc = _channel(TOY, k=0.5)
    sentences = [e for e, _ in TOY]
    for f, e in [("le chien dort", "the dog sleeps"), ("un chat", "the black cat")]:
        f, e = f.split(), e.split()
        s = nc.score(f, e)
        assert s.words == tuple(e)
        assert s.channel == pytest.approx(_model1_by_hand(nc.ibm, e, f))
        assert s.lm == pytest.approx(_add_k_by_hand(sentences, e, 0.5))
        assert s.total == pytest.approx(s.channel + s.lm)


@pytest.mark.parametrize("drop", [False, True])
@pytest.mark.parametrize("k", [None, 0.5])
def test_the_beam_reports_the_score_of_its_sentence(drop, k):
    nc = _channel(TOY, drop=drop, k=k)
    for f in FRENCH:
        out = nc.decode(f.split(), k=3, beam=4)
        again = nc.score(f.split(), out.words)
        assert out.channel == pytest.approx(again.channel, abs=1e-9)
        assert out.lm == pytest.approx(again.lm, abs=1e-9)


@pytest.mark.parametrize("drop", [False, True])
def test_the_beam_finds_the_exhaustive_argmax_on_the_toy_corpus(drop):
    nc = _channel(TOY, drop=drop)
    for f in FRENCH:
        best = nc.decode_exhaustive(f.split(), k=3)
        assert nc.decode(f.split(), k=3, beam=8).words == best.words, f
    assert nc.decode("le chien dort".split()).words == ("the", "dog", "sleeps")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_beam_as_wide_as_the_lattice_is_exhaustive(seed):
    pairs = _random_pairs(seed)
    nc = _channel(pairs, drop=seed == 1)
    for _, f in pairs[:6]:
        best = nc.decode_exhaustive(f, k=2)
        out = nc.decode(f, k=2, beam=3 ** len(f))
        assert out.total == pytest.approx(best.total, abs=1e-9)


def test_candidates_rank_by_t_times_the_frequency_and_copy_unknown_words():
    nc = _channel(TOY, drop=True)
    ibm, counts = nc.ibm, nc.lm.vocab.counts
    cands = nc.candidates(["chat", "zorglub"], k=3)
    assert cands[1] == ["zorglub", None]
    assert cands[0][-1] is None and len(cands[0]) <= 4
    weights = [ibm.prob("chat", e) * counts[e] for e in cands[0][:-1]]
    assert weights == sorted(weights, reverse=True) and cands[0][0] == "cat"
    others = [e for e in ibm.src_words[1:] if e not in cands[0]]
    assert all(ibm.prob("chat", e) * counts[e] <= weights[-1] for e in others)
    out = _channel(TOY).decode(["le", "zorglub"])
    assert out.words == ("the", "zorglub") and math.isfinite(out.total)


def test_bad_inputs_raise_clear_errors():
    nc = _channel(TOY)
    with pytest.raises(ValueError, match="empty"):
        nc.decode([])
    with pytest.raises(ValueError, match="beam must be a positive int"):
        nc.decode(["le"], beam=0)
    with pytest.raises(ValueError, match="k must be a positive int"):
        nc.decode_exhaustive(["le"], k=0)
    with pytest.raises(TypeError, match="list of tokens"):
        nc.decode("le chat")
    with pytest.raises(ValueError, match="empty"):
        nc.score([], ["the"])
    with pytest.raises(ValueError, match="choices in the lattice, over limit"):
        nc.decode_exhaustive(["le"] * 7, k=3, limit=100)
    with pytest.raises(ValueError, match="empty"):
        train_sentence_lm([])
    with pytest.raises(ValueError, match="sentence 1 is empty"):
        train_sentence_lm([["a"], []])
    trigram = train_sentence_lm([e for e, _ in TOY], order=3)
    with pytest.raises(ValueError, match="unigram or bigram"):
        NoisyChannel(nc.ibm, trigram)
    with pytest.raises(ValueError, match="floor"):
        NoisyChannel(nc.ibm, nc.lm, floor=0.0)


def test_the_gloss_is_each_words_first_candidate_and_the_beam_beats_it():
    nc = _channel(TOY, k=0.5)
    for f in FRENCH:
        g = nc.gloss(f.split())
        assert list(g.words) == [c[0] for c in nc.candidates(f.split(), 1)]
        assert g.total == pytest.approx(nc.score(f.split(), g.words).total)
        assert nc.decode(f.split()).total >= g.total - 1e-12
