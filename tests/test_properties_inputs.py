"""Malformed input at each checked entry point (Hypothesis): the library's own error, or a
correct result, never torch's raw error or a wrong number (course_lib/checks.py).

Drawn per entry point: tensors of any small shape and dtype with ids around the vocabulary's
ends (RNNLM), log-probabilities that are normalised, raw, NaN or time-first (``ctc_loss``),
prompts and end tokens of every kind (greedy decoding, beam search), text with lone
surrogates and long words (the byte-level tokenizer), nested token lists (BLEU), partial
vocabularies (Kneser-Ney), and what a ``loss_fn`` may return (``fit``). A result is checked
where it can be: shapes, a loss >= 0, log-probabilities <= 0, an exact round trip, the
rescanning merge loop's segmentation.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.checks import InputError
from course_lib.decoding import beam_search, greedy_decode
from course_lib.lm.ngram import KneserNey
from course_lib.lm.rnn_lm import RNNLM, RNNLMConfig
from course_lib.seq2seq.bleu import corpus_bleu
from course_lib.speech.ctc import ctc_loss
from course_lib.subwords import Tokenizer
from course_lib.training import fit

V = 7
DTYPES = [torch.long, torch.int32, torch.uint8, torch.float32, torch.bool]


def _model() -> RNNLM:
    torch.manual_seed(0)
    return RNNLM(RNNLMConfig(vocab_size=V, d_embed=4, d_hidden=4)).eval()


MODEL = _model()


@st.composite
def id_tensors(draw, max_dims=3):
    shape = draw(st.lists(st.integers(0, 3), min_size=1, max_size=max_dims))
    values = draw(
        st.lists(
            st.integers(-2, V + 2), min_size=math.prod(shape), max_size=math.prod(shape)
        )
    )
    dtype = draw(st.sampled_from(DTYPES))
    t = torch.tensor(values).reshape(shape)
    return (
        t.clamp(min=0).to(dtype) if dtype in (torch.uint8, torch.bool) else t.to(dtype)
    )


@settings(max_examples=60)
@given(x=id_tensors(), y=id_tensors())
def test_rnnlm_raises_its_own_error_or_scores(x, y):
    try:
        loss, _ = MODEL(x, y)
    except InputError:
        return
    except RuntimeError as err:  # torch's own, for zero-length sequences only (M08)
        assert x.dim() == 2 and x.size(1) == 0, err
        return
    assert x.shape == y.shape and x.dim() == 2 and x.dtype not in (torch.bool,)
    assert int(x.min()) >= 0 and int(x.max()) < V and int(y.max()) < V
    assert math.isnan(loss.item()) if x.size(0) == 0 else loss.item() >= 0


@st.composite
def ctc_cases(draw):
    B, T, C = draw(st.integers(0, 3)), draw(st.integers(1, 6)), draw(st.integers(2, 5))
    gen = torch.Generator().manual_seed(draw(st.integers(0, 999)))
    x = torch.randn(B, T, C, generator=gen, dtype=torch.float64)
    kind = draw(st.sampled_from(["log_softmax", "raw", "softmax", "nan", "time_first"]))
    x = {
        "log_softmax": x.log_softmax(-1),
        "raw": x,
        "softmax": x.softmax(-1),
        "nan": x.log_softmax(-1).masked_fill(
            torch.rand(B, T, 1, generator=gen) < 0.3, math.nan
        ),
        "time_first": x.log_softmax(-1).transpose(0, 1),
    }[kind]
    S = draw(st.integers(0, 3))
    targets = torch.randint(0, C + 1, (B, S), generator=gen)
    input_lengths = [draw(st.integers(0, T + 1)) for _ in range(B)]
    target_lengths = [draw(st.integers(0, S)) for _ in range(B)]
    reduction = draw(st.sampled_from(["mean", "sum", "none"]))
    return x, targets, input_lengths, target_lengths, reduction


@settings(max_examples=80)
@given(case=ctc_cases())
def test_ctc_loss_raises_its_own_error_or_a_loss_of_at_least_zero(case):
    x, targets, input_lengths, target_lengths, reduction = case
    try:
        loss = ctc_loss(x, targets, input_lengths, target_lengths, reduction=reduction)
    except InputError:
        return
    assert not torch.isnan(loss).any()
    assert (loss >= -1e-9).all()  # a negative log-likelihood: never below 0


prompts = st.one_of(
    st.lists(st.lists(st.integers(-2, V + 2), max_size=3), max_size=3),
    st.lists(st.integers(-2, V + 2), max_size=3),
    st.lists(
        st.lists(st.one_of(st.floats(-1, V + 1), st.just(math.nan)), max_size=2),
        max_size=2,
    ),
    id_tensors(max_dims=2),
)


@settings(max_examples=60)
@given(
    prompt=prompts, eos=st.one_of(st.integers(-2, V + 2), st.none()), beam=st.booleans()
)
def test_decoders_raise_their_own_error_or_decode(prompt, eos, beam):
    try:
        if beam:
            out = [
                h
                for row in beam_search(MODEL, prompt, eos=eos, max_len=3, beam_size=2)
                for h in row
            ]
        else:
            out = greedy_decode(MODEL, prompt, eos=eos, max_len=3)
    except InputError:
        return
    assert eos is not None and 0 <= eos < V or not beam and eos is None
    assert out and all(h.log_prob <= 0 and set(h.tokens) <= set(range(V)) for h in out)


def test_decoders_name_a_nan_model():
    broken = _model()
    with torch.no_grad():
        broken.out.linear.weight[0, 0] = math.nan
    for decode in (greedy_decode, beam_search):
        with pytest.raises(FloatingPointError, match="NaN log-probabilities"):
            decode(broken, [[1]], eos=2, max_len=3)


TOK = Tokenizer.train(
    ["the cat sat on the mat", "a dog sat on a log", "aaaa abab"],
    kind="byte_bpe",
    vocab_size=300,
)
PLAIN = Tokenizer.train(["the cat sat on the mat", "aaaa abab abba"], vocab_size=40)


@settings(max_examples=80)
@given(
    text=st.text(st.characters(blacklist_categories=()), max_size=30),
    word=st.text(st.sampled_from("abt"), min_size=1, max_size=300),
)
def test_tokenizer_raises_its_own_error_or_round_trips(text, word):
    try:
        ids = TOK.encode(text).ids
    except InputError:
        assert any("\ud800" <= c <= "\udfff" for c in text)
    else:
        assert TOK.decode(ids) == text
    steps = PLAIN.model.merge_steps(word)  # the rescanning loop the chapter shows
    assert [PLAIN.vocab[i] for i in PLAIN.model.encode_word(word)] == steps[-1][0]


tokens = st.lists(st.sampled_from(["the", "cat", "sat", "a b", 3]), max_size=4)
nested = st.recursive(tokens, lambda inner: st.lists(inner, max_size=3), max_leaves=12)


@settings(max_examples=80)
@given(candidates=nested, references=nested)
def test_bleu_raises_its_own_error_or_scores(candidates, references):
    try:
        score = corpus_bleu(candidates, references)
    except InputError:
        return
    assert 0.0 <= score <= 100.0


TRAIN = "the cat sat on the mat and the dog sat on the log".split()


@settings(max_examples=40)
@given(kept=st.lists(st.sampled_from(sorted(set(TRAIN))), unique=True))
def test_kneser_ney_refuses_a_vocabulary_missing_most_of_the_text(kept):
    from course_lib.data.vocab import Vocab

    vocab = Vocab.build(kept)
    missing = sum(t not in vocab for t in TRAIN)
    try:
        model = KneserNey(TRAIN, 2, vocab=vocab)
    except InputError:
        assert missing > len(TRAIN) / 2
        return
    assert missing <= len(TRAIN) / 2
    assert 1.0 <= model.perplexity("the cat sat".split()) < math.inf


@settings(max_examples=20)
@given(kind=st.sampled_from(["tuple", "vector", "scalar", "none"]))
def test_fit_raises_its_own_error_or_trains(kind):
    model = _model().train()
    x = torch.randint(0, V, (2, 4), generator=torch.Generator().manual_seed(0))
    loss_fn = {
        "tuple": lambda m, b: m(*b),
        "vector": lambda m, b: m(*b)[0].expand(3),
        "scalar": lambda m, b: m(*b)[0],
        "none": lambda m, b: None,
    }[kind]
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    try:
        history = fit(model, [(x, x)], optimizer=opt, loss_fn=loss_fn, progress=False)
    except InputError as err:
        assert kind != "scalar", err
        return
    assert kind == "scalar" and len(history.step_loss) == 1
