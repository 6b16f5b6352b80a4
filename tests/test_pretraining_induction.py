"""The repeated-random-tokens copying test (Olsson et al., 2022): exact on hand-made models."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from course_lib.pretraining import (
    GPT,
    GPTConfig,
    copy_losses,
    repeated_tokens,
)

V, N = 12, 5


class _Copier(nn.Module):
    """Uniform logits, except that from position n on it predicts the token that
    followed the current one n − 1 positions earlier: a perfect induction head."""

    def __init__(self, n: int, margin: float) -> None:
        super().__init__()
        self.n, self.margin = n, margin

    def forward(self, tokens):
        B, T = tokens.shape
        logits = torch.zeros(B, T, V, dtype=torch.float64)
        for t in range(self.n, T - 1):
            logits[torch.arange(B), t, tokens[:, t - self.n + 1]] = self.margin
        return SimpleNamespace(logits=logits)


def _rep(rows=3, seed=0):
    return repeated_tokens(
        rows, N, vocab_size=V, low=2, generator=torch.Generator().manual_seed(seed)
    )


def test_repeated_tokens_repeat_and_stay_in_range():
    x = _rep()
    assert x.shape == (3, 2 * N)
    assert torch.equal(x[:, :N], x[:, N:])
    assert x.min() >= 2 and x.max() < V


def test_a_perfect_copier_gains_and_a_uniform_model_does_not():
    x = _rep()
    losses = copy_losses(_Copier(N, 20.0), x)
    assert losses.first == pytest.approx(math.log(V), abs=1e-12)  # uniform
    second = math.log(1 + (V - 1) * math.exp(-20.0))  # softmax of one +20 logit
    assert losses.second == pytest.approx(second, rel=1e-9)
    assert losses.gain == pytest.approx(math.log(V) - second, rel=1e-9)
    uniform = copy_losses(_Copier(N, 0.0), x)
    assert uniform.gain == pytest.approx(0.0, abs=1e-12)


def test_copy_losses_equal_cross_entropy_on_a_gpt():
    torch.manual_seed(0)
    gpt = GPT(
        GPTConfig(
            vocab_size=V,
            d_model=16,
            n_heads=2,
            d_ff=32,
            n_layers=2,
            max_len=2 * N,
            dropout=0.0,
        )
    )
    x = _rep(4, seed=3)
    logits = gpt(x).logits  # (B, 2N, V)
    ce = F.cross_entropy(
        logits[:, :-1].reshape(-1, V), x[:, 1:].reshape(-1), reduction="none"
    ).view(4, 2 * N - 1)
    got = copy_losses(gpt, x)
    assert got.first == pytest.approx(ce[:, : N - 1].mean().item(), rel=1e-5)
    assert got.second == pytest.approx(ce[:, N:].mean().item(), rel=1e-5)


def test_bad_input_is_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="n must be"):
        repeated_tokens(2, 1, vocab_size=V, generator=torch.Generator())
    with pytest.raises(ValueError, match="low"):
        repeated_tokens(2, 4, vocab_size=V, low=V, generator=torch.Generator())
    with pytest.raises(ValueError, match="two equal halves"):
        copy_losses(_Copier(N, 1.0), torch.zeros(2, 7, dtype=torch.long))
    x = _rep()
    x[0, -1] = (x[0, -1] + 1) % V
    with pytest.raises(ValueError, match="repeat"):
        copy_losses(_Copier(N, 1.0), x)
