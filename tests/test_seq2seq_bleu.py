"""BLEU: the lecture's worked examples, and parity with sacrebleu (tokenize="none")."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
import sacrebleu

from course_lib.data import translation_pairs
from course_lib.seq2seq.bleu import (
    bleu_stats,
    corpus_bleu,
    ngrams,
    sacrebleu_corpus_bleu,
    sentence_bleu,
)

REPO = Path(__file__).resolve().parents[1]
REF1 = "the cat is on the mat".split()
REF2 = "there is a cat on the mat".split()


def _sacre_corpus(cands, refs, smooth):
    n = max(len(r) for r in refs)
    streams = [[" ".join(r[k]) if k < len(r) else None for r in refs] for k in range(n)]
    hyps = [" ".join(c) for c in cands]
    return sacrebleu.corpus_bleu(
        hyps, streams, tokenize="none", smooth_method=smooth, force=True
    ).score


def _sacre_sentence(cand, refs, smooth, effective_order=True):
    metric = sacrebleu.BLEU(
        tokenize="none", smooth_method=smooth, effective_order=effective_order
    )
    return metric.sentence_score(" ".join(cand), [" ".join(r) for r in refs]).score


# -- the lecture's worked examples ------------------------------------------------------
def test_clipped_unigram_precision_is_5_of_7():
    s = bleu_stats("the cat the cat on the mat".split(), [REF1])
    assert (s.matches[0], s.totals[0]) == (5, 7)  # not 5/8: the candidate has 7 words
    assert s.precision(1) == pytest.approx(5 / 7)


def test_the_the_the_is_clipped_to_the_reference_count():
    s = bleu_stats(["the"] * 6, [REF1, REF2])
    assert (s.matches[0], s.totals[0]) == (2, 6)


def test_two_references_bigram_precision_is_4_of_6():
    s = bleu_stats("the cat the cat on the mat".split(), [REF1, REF2])
    assert (s.matches[1], s.totals[1]) == (4, 6)
    assert s.precision(2) == pytest.approx(4 / 6)


def test_brevity_penalty_and_closest_reference_length():
    s = bleu_stats("the cat".split(), [REF1, REF2])
    assert s.ref_len == 6 and s.cand_len == 2
    assert s.brevity_penalty == pytest.approx(2.718281828459045 ** (1 - 6 / 2))
    tie = bleu_stats(list("abcde"), [list("abcdefg"), list("abc")])
    assert tie.ref_len == 3  # |5-7| == |5-3|: the shorter reference
    assert bleu_stats(REF1 + ["x"], [REF1]).brevity_penalty == 1.0
    assert bleu_stats([], [REF1]).brevity_penalty == 0.0


def test_perfect_match_is_100_and_ngrams_counts():
    assert corpus_bleu([REF1], [[REF1]]) == pytest.approx(100.0)
    assert ngrams("a b a b".split(), 2) == {("a", "b"): 2, ("b", "a"): 1}


# -- parity with sacrebleu ---------------------------------------------------------------
def _random_corpus(rng, n, vocab, max_refs):
    words = [f"w{i}" for i in range(vocab)]
    cands, refs = [], []
    for _ in range(n):
        ref0 = rng.choices(words, k=rng.randint(1, 12))
        cand = [w if rng.random() < 0.7 else rng.choice(words) for w in ref0]
        cand = cand[: rng.randint(0, len(cand))] if rng.random() < 0.3 else cand
        if rng.random() < 0.3:
            cand = cand + rng.choices(words, k=rng.randint(1, 4))
        more = [
            rng.choices(words, k=rng.randint(1, 12))
            for _ in range(rng.randint(0, max_refs - 1))
        ]
        cands.append(cand)
        refs.append([ref0, *more])
    return cands, refs


@pytest.mark.parametrize("smooth", ["none", "exp", "floor", "add-k"])
@pytest.mark.parametrize("seed", range(8))
def test_corpus_bleu_equals_sacrebleu_on_random_corpora(seed, smooth):
    rng = random.Random(seed)
    cands, refs = _random_corpus(rng, rng.randint(1, 30), rng.choice([3, 8, 40]), 3)
    ours = corpus_bleu(cands, refs, smooth=smooth)
    assert ours == pytest.approx(_sacre_corpus(cands, refs, smooth), abs=1e-6)
    assert ours == pytest.approx(
        sacrebleu_corpus_bleu(cands, refs, smooth=smooth), abs=1e-6
    )


@pytest.fixture(scope="module")
def tatoeba():
    """Real pairs from the offline mirror; a missing mirror fails (no skip)."""
    entries = [e for e in os.environ.get("COURSE_LIB_DATA", "").split(os.pathsep) if e]
    mirrors = [Path(e) for e in entries] + [REPO.parent / "shared" / "data"]
    mirror = next((m for m in mirrors if (m / "tatoeba_eng_fra").is_dir()), None)
    if mirror is None:
        pytest.fail(f"No data mirror with tatoeba_eng_fra (looked in {mirrors})")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COURSE_LIB_DATA", str(mirror))
        yield translation_pairs("tatoeba_eng_fra")


def test_corpus_bleu_equals_sacrebleu_on_real_tatoeba_pairs(tatoeba):
    pairs = tatoeba[20000:20400]
    by_source: dict[str, list[list[str]]] = {}
    for en, fr in pairs:
        by_source.setdefault(en, []).append(fr.lower().split())
    srcs = sorted(by_source)
    refs = [by_source[s] for s in srcs]
    rng = random.Random(0)
    # a "system": another sentence's translation, or a perturbed reference
    cands = []
    for r in refs:
        c = list(r[0])
        if rng.random() < 0.5 and len(c) > 2:
            del c[rng.randrange(len(c))]
        cands.append(c if rng.random() < 0.8 else rng.choice(refs)[0])
    assert max(len(r) for r in refs) > 1  # several references occur
    for smooth in ("none", "exp"):
        ours = corpus_bleu(cands, refs, smooth=smooth)
        assert ours == pytest.approx(_sacre_corpus(cands, refs, smooth), abs=1e-6)
        assert 0 < ours < 100


def test_no_matches_and_shorter_candidates_match_sacrebleu():
    cases = [
        ([["x", "y", "z"]], [[REF1]]),  # nothing matches
        ([["the"]], [[REF1]]),  # shorter than the 2-, 3-, 4-grams
        ([["the", "cat"], ["on", "the", "mat"]], [[REF1], [REF2]]),  # short, BP
        ([[]], [[REF1]]),  # empty candidate
        ([REF1[:5], ["a", "b"]], [[REF1, REF2], [REF2]]),
    ]
    for cands, refs in cases:
        for smooth in ("none", "exp", "floor", "add-k"):
            want = _sacre_corpus(cands, refs, smooth)
            assert corpus_bleu(cands, refs, smooth=smooth) == pytest.approx(
                want, abs=1e-6
            )
    assert corpus_bleu([["x", "y", "z"]], [[REF1]], smooth="exp") == 0.0


@pytest.mark.parametrize("smooth", ["none", "exp", "floor", "add-k"])
@pytest.mark.parametrize("effective_order", [True, False])
def test_sentence_bleu_equals_sacrebleu_with_the_same_smoothing(
    smooth, effective_order
):
    rng = random.Random(1)
    cands, refs = _random_corpus(rng, 60, 6, 3)
    cands += ["the cat the cat on the mat".split(), ["the"] * 6, ["cat"]]
    refs += [[REF1, REF2], [REF1, REF2], [REF1]]
    for cand, rr in zip(cands, refs, strict=True):
        ours = sentence_bleu(cand, rr, smooth=smooth, effective_order=effective_order)
        want = _sacre_sentence(cand, rr, smooth, effective_order)
        assert ours == pytest.approx(want, abs=1e-6), (cand, rr)


def test_sentence_bleu_defaults_are_sacrebleus():
    cand = "the cat the cat on the mat".split()
    want = sacrebleu.sentence_bleu(
        " ".join(cand), [" ".join(REF1), " ".join(REF2)], tokenize="none"
    )
    assert sentence_bleu(cand, [REF1, REF2]) == pytest.approx(want.score, abs=1e-6)


def test_corpus_bleu_is_not_the_mean_of_sentence_bleus():
    cands = [REF1, ["the", "mat"]]
    refs = [[REF1], [REF2]]
    mean = sum(sentence_bleu(c, r, smooth="none") for c, r in zip(cands, refs)) / 2
    assert corpus_bleu(cands, refs) != pytest.approx(mean)


# -- bad input ---------------------------------------------------------------------------
def test_bad_input_raises_clear_errors():
    with pytest.raises(ValueError, match="at least one reference"):
        corpus_bleu([REF1], [[]])
    with pytest.raises(ValueError, match="at least one reference"):
        sentence_bleu(REF1, [])
    with pytest.raises(ValueError, match="one list of references per candidate"):
        corpus_bleu([REF1, REF1], [[REF1]])
    with pytest.raises(TypeError, match="not a string"):
        sentence_bleu("the cat", [REF1])
    with pytest.raises(TypeError, match="not a string"):
        sentence_bleu(REF1, ["the cat"])
    with pytest.raises(ValueError, match="smooth must be one of"):
        corpus_bleu([REF1], [[REF1]], smooth="laplace")
    with pytest.raises(ValueError, match="at least one candidate"):
        corpus_bleu([], [])


def test_bleu_columns_sum_to_corpus_bleu_and_compare_bleu_is_paired():
    from course_lib.compare import Comparison
    from course_lib.seq2seq.bleu import bleu_columns, bleu_of_columns, compare_bleu

    rng = random.Random(0)
    words = "a b c d e f g h".split()
    refs = [[[rng.choice(words) for _ in range(rng.randint(3, 9))]] for _ in range(60)]
    good = [r[0][:-1] if i % 3 else r[0] for i, r in enumerate(refs)]  # near the refs
    bad = [[rng.choice(words) for _ in range(len(r[0]))] for r in refs]
    for cands in (good, bad):
        columns = bleu_columns(cands, refs)
        assert len(columns) == 10 and all(len(c) == 60 for c in columns)
        assert bleu_of_columns(*columns) == corpus_bleu(cands, refs)
    # a resample of the rows is the corpus BLEU of those sentences
    rows = [3, 3, 7, 10, 59]
    picked = [[c[i] for i in rows] for c in bleu_columns(good, refs)]
    assert bleu_of_columns(*picked) == corpus_bleu(
        [good[i] for i in rows], [refs[i] for i in rows]
    )
    c = compare_bleu(good, bad, refs)
    assert isinstance(c, Comparison) and c.unit == "points"
    assert (c.a, c.b) == (corpus_bleu(good, refs), corpus_bleu(bad, refs))
    assert c.se > 0 and c.better and c.verdict == "ahead"
    mirror = compare_bleu(bad, good, refs)
    assert mirror.worse and abs(mirror.se - c.se) < 0.5 * c.se
    same = compare_bleu(good, good, refs)
    assert same.se == 0 and same.verdict == "within the noise"
    with pytest.raises(ValueError, match="same sentences"):
        compare_bleu(good, bad[:-1], refs)
    with pytest.raises(ValueError, match="columns"):
        bleu_of_columns([1], [2], [3])
