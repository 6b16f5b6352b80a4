"""T5's span corruption: exact counts, alternating spans, inputs + targets = original."""

from __future__ import annotations

import pytest
import torch

from course_lib.pretraining import (
    noise_counts,
    random_spans_noise_mask,
    rebuild,
    span_corrupt,
)

SENTINELS = list(range(1000, 1100))


def _spans(mask):
    m = mask.tolist()
    return sum(1 for i, v in enumerate(m) if v and (i == 0 or not m[i - 1]))


@pytest.mark.parametrize("L", [1, 2, 5, 10, 20, 33, 100, 512])
def test_counts_exactly_as_t5(L):
    num_noise, num_spans = noise_counts(L)
    n = max(L, 2)
    expect_noise = min(max(round(n * 0.15), 1), n - 1)
    assert num_noise == expect_noise
    assert num_spans == max(round(expect_noise / 3), 1)
    for seed in range(5):
        mask = random_spans_noise_mask(L, generator=torch.Generator().manual_seed(seed))
        assert mask.shape == (L,)
        if L >= 2:
            assert int(mask.sum()) == num_noise
            assert _spans(mask) == num_spans
            assert not mask[0]  # a kept span comes first


def test_known_values():
    assert noise_counts(100) == (15, 5)
    assert noise_counts(10) == (2, 1)  # round(1.5) = 2, round(2/3) = 1
    assert noise_counts(30) == (4, 1)  # round(4.5) = 4 (half to even), round(4/3) = 1


@pytest.mark.parametrize("L", [3, 17, 64, 200])
def test_inputs_and_targets_rebuild_the_original(L):
    tokens = list(range(L))
    for seed in range(5):
        g = torch.Generator().manual_seed(seed)
        inputs, targets = span_corrupt(tokens, SENTINELS, generator=g)
        assert rebuild(inputs, targets, SENTINELS) == tokens
        _, spans = noise_counts(L)
        assert sum(t in SENTINELS for t in inputs) == spans
        assert targets[0] == SENTINELS[0]
        assert len(inputs) + len(targets) == L + 2 * spans


def test_errors():
    with pytest.raises(ValueError, match="sentinels"):
        span_corrupt(list(range(100)), SENTINELS[:2])
    with pytest.raises(ValueError, match="length"):
        noise_counts(0)
    with pytest.raises(ValueError, match="start with a sentinel"):
        rebuild([1, 2], [5], SENTINELS)
