"""Sampling: temperature, top-k, end token, determinism, bad input."""

import pytest
import torch

from course_lib.lm.sampling import generate, sample_next


def test_top_k_keeps_only_the_k_best():
    scores = torch.tensor([0.0, 3.0, 1.0, 2.0])
    gen = torch.Generator().manual_seed(0)
    draws = {int(sample_next(scores, top_k=2, generator=gen)) for _ in range(200)}
    assert draws == {1, 3}
    assert int(sample_next(scores, top_k=1)) == 1  # greedy


def test_temperature_sharpens_and_flattens():
    scores = torch.tensor([[0.0, 1.0]]).repeat(4000, 1)
    gen = torch.Generator().manual_seed(0)
    cold = sample_next(scores, temperature=0.25, generator=gen).float().mean()
    hot = sample_next(scores, temperature=4.0, generator=gen).float().mean()
    p1 = torch.tensor([0.0, 1.0]).softmax(0)[1]
    assert cold > p1 + 0.1 and hot < p1 - 0.1 and abs(hot - 0.56) < 0.05


def _counter_step(token, state):
    """A toy model: after token i, token i+1 is certain (vocabulary of 5)."""
    scores = torch.full((5,), -1e9)
    scores[(token + 1) % 5] = 0.0
    return scores, (state or 0) + 1


def test_generate_stops_at_end_token_and_is_deterministic():
    out = generate(_counter_step, [0], max_new_tokens=10, end_id=3)
    assert out == [1, 2, 3]
    assert generate(_counter_step, [0], max_new_tokens=2) == [1, 2]
    a = generate(
        lambda t, s: (torch.zeros(7), s),
        [0],
        max_new_tokens=20,
        generator=torch.Generator().manual_seed(1),
    )
    b = generate(
        lambda t, s: (torch.zeros(7), s),
        [0],
        max_new_tokens=20,
        generator=torch.Generator().manual_seed(1),
    )
    assert a == b


def test_bad_inputs():
    with pytest.raises(ValueError, match="temperature must be > 0"):
        sample_next(torch.zeros(3), temperature=0)
    with pytest.raises(ValueError, match="temperature must be > 0"):
        generate(_counter_step, [0], max_new_tokens=3, temperature=-1.0)
    with pytest.raises(ValueError, match="top_k"):
        sample_next(torch.zeros(3), top_k=0)
    with pytest.raises(ValueError, match="prompt"):
        generate(_counter_step, [], max_new_tokens=3)
    with pytest.raises(ValueError, match=r"\(V,\) or \(B, V\)"):
        sample_next(torch.zeros(1, 2, 3))
