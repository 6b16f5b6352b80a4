"""n-gram counting and smoothing: normalisation, hand-computed perplexity, bad input."""

import math

import numpy as np
import pytest

from course_lib.decoding import sample
from course_lib.lm.ngram import MLE, AddK, Backoff, KneserNey
from course_lib.lm.ngram_counts import NGramCounts
from course_lib.lm.perplexity import (
    bits_per_token,
    line_totals,
    perplexity,
    perplexity_from_loss,
    perplexity_of_totals,
)

TOY = (
    "the cat sat on the mat <eos> the dog sat on the log <eos> "
    "a cat saw the dog <eos> the cat ate <eos>"
).split()


def _contexts(tokens, n):
    return {tuple(tokens[i - n + 1 : i]) for i in range(n - 1, len(tokens) + 1)}


@pytest.mark.parametrize("order", [1, 2, 3, 4])
@pytest.mark.parametrize("cls", [KneserNey, Backoff, AddK])
def test_sums_to_one_for_every_seen_context(cls, order):
    model = cls(TOY, order)
    for context in _contexts(TOY, order):
        p = model.distribution(list(context))
        assert p.shape == (len(model.vocab),) and (p >= 0).all()
        if cls is not Backoff:  # backoff keeps MLE where seen words hold all the mass
            assert (p > 0).all()
        assert abs(p.sum() - 1) < 1e-12, context


def test_kneser_ney_sums_to_one_for_unseen_and_short_contexts():
    model = KneserNey(TOY, 3)
    for context in (["mat", "ate"], ["zebra", "the"], ["the"], []):
        assert abs(model.distribution(context).sum() - 1) < 1e-12


def test_counts_tables():
    ids = np.array([0, 1, 0, 1, 2])
    c = NGramCounts(ids, 2, 3)
    assert c.rows(1) == 3 and c.rows(2) == 3  # bigrams 01, 10, 12
    assert dict(zip(c.word[1].tolist(), c.counts[1].tolist())) == {0: 2, 1: 2, 2: 1}
    assert sorted(c.counts[2].tolist()) == [1, 1, 2]
    assert c.unseen_fraction(np.array([0, 1, 2, 0]))[2] == pytest.approx(1 / 3)


def test_mle_perplexity_by_hand():
    # bigram MLE on "a b a b <eos>": P(b|a) = 1, P(a|b) = 1/2, P(<eos>|b) = 1/2
    model = MLE("a b a b <eos>".split(), 2)
    # first token scored by the unigram MLE: P(a) = 2/5
    probs = model.probs("a b a".split())
    assert np.allclose(probs, [2 / 5, 1.0, 1 / 2])
    expected = (2 / 5 * 1.0 * 1 / 2) ** (-1 / 3)
    assert model.perplexity("a b a".split()) == pytest.approx(expected, rel=1e-12)
    assert model.perplexity("b b".split()) == math.inf  # P(b|b) = 0


def test_add_k_by_hand():
    model = AddK("a b a b <eos>".split(), 2, k=0.5)
    V = len(model.vocab)  # <unk>, a, b, <eos>
    assert V == 4
    # c(a b) = 2, c(a) as context = 2: (2 + 0.5) / (2 + 0.5 V)
    p = model.distribution(["a"])
    assert p[model.vocab.index("b")] == pytest.approx(2.5 / (2 + 0.5 * V))


def test_kneser_ney_by_hand():
    toks = "a b a b <eos>".split()
    model = KneserNey(toks, 2)
    D2 = model.discounts[2]
    # continuation counts: a after {b, start: none} -> N1+(• a) = 1 (b a); b: 1 (a b);
    # <eos>: 1 (b <eos>); total 3 bigram types, 3 word types with N1+ > 0.
    D1 = model.discounts[1]
    V = len(model.vocab)
    p1_b = (1 - D1) / 3 + D1 * 3 / 3 / V
    # P(b | a): c(a b) = 2, c(a) = 2, N1+(a •) = 1
    expected = (2 - D2) / 2 + D2 * 1 / 2 * p1_b
    assert model.distribution(["a"])[model.vocab.index("b")] == pytest.approx(expected)


def test_oov_context_is_read_as_unk():
    model = KneserNey(TOY + ["<unk>", "sat"], 2)
    assert np.allclose(model.distribution(["zebra"]), model.distribution(["<unk>"]))
    assert np.isfinite(model.log_probs(["zebra", "sat"])).all()


def test_perplexity_helpers():
    assert perplexity(np.log([0.5, 0.25])) == pytest.approx(math.sqrt(8))
    assert perplexity_from_loss(math.log(10)) == pytest.approx(10)
    assert bits_per_token(math.log(2)) == pytest.approx(1)
    with pytest.raises(ValueError, match="non-empty"):
        perplexity([])
    with pytest.raises(ValueError, match="<= 0"):
        perplexity([0.5])


def test_generation_with_kneser_ney():
    import torch

    model = KneserNey(TOY, 3)
    eos = model.vocab.index("<eos>")
    gen = torch.Generator().manual_seed(0)
    (h,) = sample(model, [eos], max_new_tokens=30, eos=eos, generator=gen)
    assert len(h.tokens) + h.finished <= 30 and eos not in h.tokens
    # batched rows equal rows drawn one at a time (the contexts are kept per row)
    logp, state = model.step(torch.tensor([eos, eos]), None)
    assert logp.shape == (2, len(model.vocab)) and state == [(eos,), (eos,)]
    torch.testing.assert_close(logp.exp().sum(-1), torch.ones(2, dtype=torch.float64))
    assert model.reorder(state, torch.tensor([1, 1, 0])) == [(eos,)] * 3


def test_bad_inputs():
    with pytest.raises(ValueError, match="empty"):
        KneserNey([], 3)
    with pytest.raises(ValueError, match="order must be an int >= 1"):
        KneserNey(TOY, 0)
    with pytest.raises(TypeError, match="not a string"):
        MLE("a b c", 2)
    with pytest.raises(ValueError, match="k must be > 0"):
        AddK(TOY, 2, k=0)
    with pytest.raises(ValueError, match="stream to score is empty"):
        KneserNey(TOY, 2).probs([])


def test_shared_counts_give_the_same_model():
    big = KneserNey(TOY, 4)
    for n in (1, 2, 3):
        alone, shared = (
            KneserNey(TOY, n),
            KneserNey(TOY, n, big.vocab, counts=big.counts),
        )
        assert np.allclose(alone.probs(TOY), shared.probs(TOY), rtol=0, atol=1e-14)
        assert np.allclose(alone.distribution(["the"]), shared.distribution(["the"]))
    with pytest.raises(ValueError, match="cannot serve"):
        KneserNey(TOY, 5, big.vocab, counts=big.counts)


def test_line_totals_add_up_to_the_perplexity_of_the_scored_tokens():
    rng = np.random.default_rng(0)
    eos = 0
    stream = rng.integers(0, 6, size=200)  # (N,) ids; 0 ends a line
    positions = np.arange(1, 200, 3)  # the scored tokens, some lines with none
    lp = np.log(rng.uniform(0.01, 1.0, size=positions.size))  # (M,)
    nll, tokens = line_totals(lp, positions, stream, eos)
    assert tokens.sum() == positions.size and (tokens > 0).all()
    assert np.isclose(nll.sum(), -lp.sum())
    assert np.isclose(perplexity_of_totals(nll, tokens), perplexity(lp))
    # a line is the tokens up to and including its eos: line k holds the k-th eos
    line = np.concatenate(([0], np.cumsum(stream[:-1] == eos)))[positions]
    first = line == line.min()
    assert np.isclose(nll[0], -lp[first].sum()) and tokens[0] == first.sum()
    with pytest.raises(ValueError, match="one length"):
        line_totals(lp[:-1], positions, stream, eos)
