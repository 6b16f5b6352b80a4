"""BLEU against sacrebleu (``tokenize="none"``) on random corpora drawn by Hypothesis.

Drawn: corpora of 1-6 sentences, candidates and references of 0-12 tokens over a small
vocabulary (so that n-grams match) or over any non-space Unicode text, 1-3 references per
sentence (some sentences with fewer: sacrebleu's ``None`` in a reference stream), every
smoothing method with its default and other values, corpus and sentence BLEU, with and
without effective order. Scores must agree to 1e-9 on sacrebleu's 0-100 scale.
"""

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.seq2seq.bleu import corpus_bleu, sentence_bleu

SMALL = st.sampled_from("the a cat dog sat on mat".split())
ANY = st.text(
    st.characters(blacklist_categories=("Zs", "Zl", "Zp", "Cc", "Cs")),
    min_size=1,
    max_size=3,
)
SMOOTH = st.sampled_from(["none", "floor", "add-k", "exp"])


@st.composite
def corpora(draw):
    token = draw(st.sampled_from([SMALL, SMALL, ANY]))
    sentence = st.lists(token, max_size=12)
    n = draw(st.integers(1, 6))
    cands = [draw(sentence) for _ in range(n)]
    n_refs = draw(st.integers(1, 3))
    refs = [
        [draw(sentence) for _ in range(draw(st.integers(1, n_refs)))] for _ in range(n)
    ]
    return cands, refs


def _streams(refs):
    n_refs = max(map(len, refs))
    return [
        [" ".join(r[k]) if k < len(r) else None for r in refs] for k in range(n_refs)
    ]


def _smooth_value(draw, smooth):
    if smooth in ("floor", "add-k") and draw(st.booleans()):
        return draw(st.sampled_from([0.01, 0.5, 2.0]))
    return None


@settings(max_examples=150)
@given(corpora(), SMOOTH, st.data())
def test_corpus_bleu_equals_sacrebleu(corpus, smooth, data):
    cands, refs = corpus
    value = _smooth_value(data.draw, smooth)
    theirs = sacrebleu.corpus_bleu(
        [" ".join(c) for c in cands],
        _streams(refs),
        tokenize="none",
        smooth_method=smooth,
        smooth_value=value,
        force=True,
    ).score
    ours = corpus_bleu(cands, refs, smooth=smooth, smooth_value=value)
    assert ours == pytest.approx(theirs, abs=1e-9)


@settings(max_examples=150)
@given(corpora(), SMOOTH, st.booleans(), st.data())
def test_sentence_bleu_equals_sacrebleu(corpus, smooth, effective_order, data):
    cands, refs = corpus
    value = _smooth_value(data.draw, smooth)
    metric = sacrebleu.BLEU(
        tokenize="none",
        smooth_method=smooth,
        smooth_value=value,
        effective_order=effective_order,
    )
    theirs = metric.sentence_score(" ".join(cands[0]), [" ".join(r) for r in refs[0]])
    ours = sentence_bleu(
        cands[0],
        refs[0],
        smooth=smooth,
        smooth_value=value,
        effective_order=effective_order,
    )
    assert ours == pytest.approx(theirs.score, abs=1e-9)
