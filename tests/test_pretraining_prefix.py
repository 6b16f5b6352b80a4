"""Prefix tuning (Li & Liang, 2021): exactness, real-token prefixes, frozen weights."""

from __future__ import annotations

import pytest
import torch

from course_lib.decoding import greedy_decode
from course_lib.pretraining import (
    GPT,
    GPTConfig,
    HeadOnly,
    PrefixTuning,
    prefix_attention,
    trainable_count,
)

V = 30


def _gpt():
    torch.manual_seed(0)
    cfg = GPTConfig(
        vocab_size=V,
        d_model=16,
        n_heads=4,
        d_ff=32,
        n_layers=3,
        max_len=20,
        dropout=0.0,
    )
    return GPT(cfg).double().eval()


def _tokens(B=2, T=6, seed=1):
    return torch.randint(0, V, (B, T), generator=torch.Generator().manual_seed(seed))


def test_prefix_length_zero_gives_the_frozen_logits_exactly():
    gpt = _gpt()
    x = _tokens()
    expected = gpt(x).logits
    tuned = PrefixTuning(gpt, 0).double()
    assert torch.equal(tuned(x).logits, expected)


def test_prefix_of_real_tokens_equals_prepending_them():
    gpt = _gpt()
    real, x = _tokens(1, 4, seed=2), _tokens(1, 6)
    tuned = PrefixTuning(gpt, 4).double().set_prefix(gpt(real).cache)
    prepended = gpt(torch.cat([real, x], 1)).logits[:, 4:]
    torch.testing.assert_close(tuned(x).logits, prepended, rtol=1e-10, atol=1e-12)
    # and decoding through the cache continues the same way
    a = greedy_decode(tuned, x, eos=0, max_len=5)[0].tokens
    b = greedy_decode(gpt, torch.cat([real, x], 1), eos=0, max_len=5)[0].tokens
    assert a == b


def test_training_leaves_frozen_weights_unchanged_and_counts_match():
    gpt = _gpt()
    before = {k: v.clone() for k, v in gpt.state_dict().items()}
    P, L, D = 5, 3, 16
    tuned = PrefixTuning(gpt, P, reparam_dim=8, hidden=24).double()
    assert trainable_count(tuned) == P * 8 + (8 * 24 + 24) + (
        24 * L * 2 * D + L * 2 * D
    )
    opt = torch.optim.Adam([p for p in tuned.parameters() if p.requires_grad], lr=1e-2)
    x = _tokens(4, 8)
    first = None
    for _ in range(20):
        out = tuned(x[:, :-1]).logits
        loss = torch.nn.functional.cross_entropy(
            out.reshape(-1, V), x[:, 1:].reshape(-1)
        )
        first = first if first is not None else loss.item()
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert loss.item() < first
    for k, v in gpt.state_dict().items():
        assert torch.equal(v, before[k]), k
    kept = tuned(x).logits
    tuned.merge()
    assert trainable_count(tuned) == P * L * 2 * D
    torch.testing.assert_close(tuned(x).logits, kept, rtol=1e-10, atol=1e-12)


def test_prefix_longer_than_the_context_is_a_clear_error():
    gpt = _gpt()
    with pytest.raises(ValueError, match="max_len"):
        PrefixTuning(gpt, 20)
    tuned = PrefixTuning(gpt, 15).double()
    with pytest.raises(ValueError, match="exceed the context"):
        tuned(_tokens(1, 6))
    with pytest.raises(ValueError, match="prefix_len"):
        PrefixTuning(gpt, -1)


def test_head_only_starts_as_the_model_and_trains_only_the_head():
    gpt = _gpt()
    x = _tokens()
    expected = gpt(x).logits
    head = HeadOnly(gpt).double()
    torch.testing.assert_close(head(x).logits, expected, rtol=1e-10, atol=1e-12)
    assert trainable_count(head) == 16 * V + V
    assert (
        greedy_decode(head, x, eos=0, max_len=3)[0].tokens
        == greedy_decode(gpt, x, eos=0, max_len=3)[0].tokens
    )


def test_prefix_attention_is_the_mean_share_on_the_prefix_keys():
    gpt = _gpt()
    prompts = [[1, 2, 3], [4, 5, 6, 7, 8]]
    assert torch.equal(
        prefix_attention(PrefixTuning(gpt, 0).double(), prompts), torch.zeros(3)
    )
    torch.manual_seed(2)
    tuned = PrefixTuning(gpt, 4).double()
    shares = prefix_attention(tuned, prompts)
    assert shares.shape == (3,) and ((shares > 0) & (shares < 1)).all()
    expected = torch.zeros(3, dtype=torch.float64)
    for prompt in prompts:
        weights = gpt(torch.tensor([prompt]), past=tuned.past(1), fast=False).weights
        expected += torch.stack([w[..., :4].sum(-1).mean() for w in weights])
    torch.testing.assert_close(shares.double(), expected / 2, rtol=1e-6, atol=1e-7)
    assert tuned.training  # eval mode only while measuring


def test_the_exercise_reference_is_causal_attention_with_the_prefix_prepended():
    """course_lib.exercises.ch09.prefix_attention_output: the last T rows of torch's causal
    attention over P + T positions whose first P keys and values are the prefix's."""
    import torch.nn.functional as F

    from course_lib.exercises.ch09 import prefix_attention_output

    g = torch.Generator().manual_seed(0)
    T, P, d = 5, 3, 4
    q, k, v = (torch.randn(T, d, generator=g, dtype=torch.float64) for _ in range(3))
    pk, pv = (torch.randn(P, d, generator=g, dtype=torch.float64) for _ in range(2))
    q_all = torch.cat([torch.randn(P, d, generator=g, dtype=torch.float64), q])
    full = F.scaled_dot_product_attention(
        q_all, torch.cat([pk, k]), torch.cat([pv, v]), is_causal=True
    )  # (P + T, d)
    got = prefix_attention_output(q, k, v, pk, pv)  # (T, d)
    torch.testing.assert_close(got, full[P:])
