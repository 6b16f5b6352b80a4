"""Sentence scoring: parity with the n-gram stream scores and with the RNN LM's own loss."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from course_lib.lm.ngram import KneserNey
from course_lib.lm.rnn_lm import RNNLM, RNNLMConfig
from course_lib.lm.scoring import SOUNDS_ALIKE, sentence_log_probs, token_log_probs

TOY = (
    "the cat sat on the mat <eos> the dog sat on the log <eos> "
    "a cat saw the dog <eos> the cat ate <eos>"
).split()


@pytest.mark.parametrize("order", [1, 2, 3])
def test_ngram_sentence_equals_its_stream_score(order):
    kn = KneserNey(TOY, order)
    eos = kn.vocab.index("<eos>")
    for words in (["the", "cat", "sat"], ["a", "dog", "ate", "the", "mat"], ["log"]):
        stream = ["<eos>", *words, "<eos>"]
        expected = kn.log_probs(stream)[1:]  # every token after the start
        got = token_log_probs(kn, [kn.encode(words)], bos=eos, eos=eos)[0]
        np.testing.assert_allclose(got.numpy(), expected, rtol=0, atol=1e-12)
        total = sentence_log_probs(kn, [kn.encode(words)], bos=eos, eos=eos)
        assert total.dtype == torch.float64 and total.shape == (1,)
        assert total.item() == pytest.approx(expected.sum(), abs=1e-12)


def test_rnn_lm_matches_its_cross_entropy_and_batching_changes_nothing():
    torch.manual_seed(0)
    model = RNNLM(RNNLMConfig(vocab_size=13, d_embed=6, d_hidden=7, cell="lstm"))
    model = model.double()
    sentences = [[3, 4, 5, 6, 7], [8], [9, 10, 11]]
    bos = eos = 0
    batched = token_log_probs(model, sentences, bos=bos, eos=eos)
    for s, lp in zip(sentences, batched, strict=True):
        x = torch.tensor([[bos, *s]])  # (1, n + 1)
        y = torch.tensor([[*s, eos]])  # (1, n + 1)
        hs, _ = model.features(x)  # (1, n + 1, H)
        ref = -F.cross_entropy(model.out.linear(hs[0]), y[0], reduction="none")
        torch.testing.assert_close(lp, ref.double(), rtol=0, atol=1e-10)
        alone = token_log_probs(model, [s], bos=bos, eos=eos)[0]
        torch.testing.assert_close(alone, lp, rtol=0, atol=1e-12)
    totals = sentence_log_probs(model, sentences, bos=bos, eos=eos)
    torch.testing.assert_close(totals, torch.stack([lp.sum() for lp in batched]))
    without_eos = token_log_probs(model, sentences, bos=bos)
    assert [t.numel() for t in without_eos] == [5, 1, 3]
    torch.testing.assert_close(without_eos[0], batched[0][:-1])


def test_model_left_in_training_mode_is_scored_in_eval_mode():
    torch.manual_seed(0)
    model = RNNLM(RNNLMConfig(vocab_size=9, d_embed=4, d_hidden=4, dropout=0.5))
    model.train()
    a = sentence_log_probs(model, [[1, 2, 3]], bos=0, eos=0)
    b = sentence_log_probs(model, [[1, 2, 3]], bos=0, eos=0)
    assert torch.equal(a, b) and model.training


def test_bad_input():
    kn = KneserNey(TOY, 2)
    with pytest.raises(TypeError, match="list of token-id lists"):
        sentence_log_probs(kn, "the cat", bos=0)
    with pytest.raises(TypeError, match="int ids"):
        sentence_log_probs(kn, [["the", "cat"]], bos=0)
    with pytest.raises(ValueError, match="empty"):
        sentence_log_probs(kn, [[]], bos=0)
    with pytest.raises(ValueError, match="no sentences"):
        sentence_log_probs(kn, [], bos=0)
    with pytest.raises(TypeError, match="step"):
        sentence_log_probs(object(), [[1]], bos=0)


def test_the_sounds_alike_pairs_differ_and_start_with_the_lecture():
    assert SOUNDS_ALIKE[0] == ("apple and pear salad", "apple and pair salad")
    for said, alike in SOUNDS_ALIKE:
        assert said != alike and said == said.lower() and alike == alike.lower()
