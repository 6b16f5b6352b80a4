"""The small GPT: causal mask, KV cache = no cache, decoding protocol, loss (Chapter 9)."""

from __future__ import annotations

import math

import pytest
import torch

from course_lib.decoding import beam_search, greedy_decode, sample
from course_lib.pretraining import GPT, GPTConfig, eval_blocks, score_stream

V = 30


def _model(**kw):
    torch.manual_seed(0)
    cfg = dict(vocab_size=V, d_model=16, n_heads=4, d_ff=32, n_layers=2, max_len=24)
    cfg.update(dropout=0.0, **kw)
    return GPT(GPTConfig(**cfg)).double().eval()


def _tokens(B=3, T=9, seed=1):
    return torch.randint(0, V, (B, T), generator=torch.Generator().manual_seed(seed))


def test_shapes_and_cache():
    model = _model()
    out = model(_tokens())
    assert out.logits.shape == (3, 9, V)
    assert len(out.cache) == 2 and out.cache[0][0].shape == (3, 4, 9, 4)
    assert out.weights[0].shape == (3, 4, 9, 9)


def test_no_peeking_at_the_future():
    model = _model()
    a = _tokens()
    b = a.clone()
    b[:, 5:] = (b[:, 5:] + 1) % V
    la, lb = model(a).logits, model(b).logits
    torch.testing.assert_close(la[:, :5], lb[:, :5], rtol=1e-10, atol=1e-12)
    assert not torch.allclose(la[:, 5:], lb[:, 5:])


def test_cached_equals_uncached_stepwise_and_full():
    model = _model()
    x = _tokens()
    full = model(x).logits.log_softmax(-1)  # (B, T, V)
    s_cache, s_plain = model.start(3), model.start(3, use_cache=False)
    for t in range(x.size(1)):
        lp_c, s_cache = model.step(x[:, t], s_cache)
        lp_p, s_plain = model.step(x[:, t], s_plain)
        torch.testing.assert_close(lp_c, lp_p, rtol=1e-9, atol=1e-10)
        torch.testing.assert_close(lp_c, full[:, t], rtol=1e-9, atol=1e-10)
    assert s_cache.cache[0][0].shape[2] == x.size(1) and s_plain.cache is None


def test_split_forward_with_past_equals_one_forward():
    model = _model()
    x = _tokens()
    first = model(x[:, :4])
    rest = model(x[:, 4:], past=first.cache)
    torch.testing.assert_close(
        torch.cat([first.logits, rest.logits], 1),
        model(x).logits,
        rtol=1e-10,
        atol=1e-12,
    )


def test_fast_path_equals_teaching_path():
    model = _model()
    x = _tokens()
    torch.testing.assert_close(
        model(x, fast=True).logits, model(x, fast=False).logits, rtol=1e-10, atol=1e-12
    )


def test_decoding_functions_work_and_cache_does_not_change_greedy():
    model = _model()
    prompt = _tokens(2, 3)
    g1 = greedy_decode(model, prompt, eos=0, max_len=6)
    g2 = greedy_decode(model, prompt, model.start(2, use_cache=False), eos=0, max_len=6)
    assert [h.tokens for h in g1] == [h.tokens for h in g2]
    beams = beam_search(model, prompt, eos=0, beam_size=3, max_len=6)
    assert len(beams) == 2
    gen = torch.Generator().manual_seed(0)
    s = sample(model, prompt, max_new_tokens=5, top_k=5, top_p=0.9, generator=gen)
    assert all(len(h.tokens) <= 5 for h in s)


def test_loss_is_next_token_cross_entropy_and_ignores_pad():
    model = _model(pad_id=0)
    x = _tokens()
    x[:, -2:] = 0
    logits = model(x[:, :-1]).logits
    lp = logits.log_softmax(-1).gather(2, x[:, 1:, None]).squeeze(2)
    keep = x[:, 1:] != 0
    expected = -(lp[keep]).mean()
    torch.testing.assert_close(model.loss(x), expected, rtol=1e-6, atol=1e-8)


def test_bad_inputs_raise_clear_errors():
    model = _model()
    with pytest.raises(ValueError, match="max_len"):
        model(_tokens(1, 25))
    with pytest.raises(ValueError, match="exceed the context"):
        model(_tokens(1, 5), past=model(_tokens(1, 20)).cache)
    with pytest.raises(TypeError, match="integer"):
        model(torch.zeros(2, 3))
    with pytest.raises(ValueError, match="divisible"):
        GPTConfig(vocab_size=5, d_model=10, n_heads=4)


def test_eval_blocks_predict_every_token_once_and_perplexities():
    ids = torch.arange(23)
    blocks = eval_blocks(ids, 5)
    assert blocks.shape == (5, 5)
    predicted = blocks[:, 1:].reshape(-1).tolist()
    assert predicted == list(range(1, 21))
    model = _model()
    stream = torch.randint(0, V, (200,), generator=torch.Generator().manual_seed(3))
    score = score_stream(model, stream, block_len=12, n_words=100)
    assert score.n_tokens == 18 * 11
    assert math.isclose(score.per_token, math.exp(score.nll / score.n_tokens))
    assert score.per_word > score.per_token  # fewer words than tokens
