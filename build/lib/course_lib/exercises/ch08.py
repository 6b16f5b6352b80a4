"""Chapter 8 exercises (Transformers): attention, masks, sinusoidal positions.

References: ``course_lib.transformer`` (``scaled_dot_product_attention``, ``causal_mask``,
``padding_mask``, ``sinusoidal_encoding``).
"""

from __future__ import annotations

import math

import torch

from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.transformer.attention import scaled_dot_product_attention
from course_lib.transformer.masks import causal_mask, padding_mask
from course_lib.transformer.positional import sinusoidal_encoding


def _attention(q, k, v, mask=None):
    return scaled_dot_product_attention(q, k, v, mask)[0]  # (B, T_q, d_v)


def _attention_cases(gen):
    cases = []
    for i, (B, Tq, Tk, d) in enumerate([(2, 3, 4, 8), (1, 5, 5, 16), (2, 4, 2, 4)]):
        q, k, v = (
            torch.randn(B, t, d, generator=gen, dtype=torch.float64)
            for t in (Tq, Tk, Tk)
        )
        mask = torch.ones(B, 1, Tk, dtype=torch.bool)
        mask[-1, 0, Tk - 1] = False  # the last key of the last row is padding
        cases.append(Case((q, k, v, mask), label=f"random {i}"))
    return cases


def _unscaled(q, k, v, mask=None):
    scores = (q @ k.transpose(-2, -1)).masked_fill(~mask, float("-inf"))
    return scores.softmax(-1) @ v


def _unmasked(q, k, v, mask=None):
    return (q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))).softmax(-1) @ v


def _sinusoid_cases(gen):
    return [
        Case((T, D), label=f"T = {T}, D = {D}")
        for T, D in [(4, 4), (10, 8), (3, 16), (1, 2)]
    ]


def _sinusoid(T, D):
    return sinusoidal_encoding(T, D, dtype=torch.float64)  # (T, D)


def _sinusoid_with(T, D, exponent, swap):
    omega = 10000.0 ** (
        -exponent * torch.arange(D // 2, dtype=torch.float64) / D
    )  # (D/2,)
    angles = torch.arange(T, dtype=torch.float64)[:, None] * omega  # (T, D/2)
    pair = (angles.cos(), angles.sin()) if swap else (angles.sin(), angles.cos())
    return torch.stack(pair, dim=-1).reshape(T, D)  # (T, D)


def _padding_cases(gen):
    cases = []
    for i, (B, T) in enumerate([(2, 5), (3, 4)]):
        tokens = torch.randint(1, 9, (B, T), generator=gen)
        tokens[-1, T - 2 :] = 0
        cases.append(Case((tokens, 0), label=f"random {i} (pad id 0)"))
    return cases


register(
    Exercise(
        "ch08.attention",
        "attention(q: (B, T_q, d), k: (B, T_k, d), v: (B, T_k, d_v), mask: bool (B, 1, T_k)) -> (B, T_q, d_v)",
        _attention,
        _attention_cases,
        "softmax(QKᵀ/√d_k) V, with the scores of masked keys (mask False) set to −inf first.",
        (
            Mistake("the scores are not divided by √d_k", _unscaled),
            Mistake("the mask is forgotten", _unmasked),
        ),
        rtol=1e-6,
        atol=1e-10,
    ),
    Exercise(
        "ch08.causal_mask",
        "causal_mask(T: int) -> bool (T, T)",
        causal_mask,
        lambda gen: [Case((T,), label=f"T = {T}") for T in (1, 2, 4, 7)],
        "Position i may attend to j <= i: True on and below the diagonal.",
        (
            Mistake(
                "the diagonal is masked too (a token cannot see itself)",
                lambda T: torch.ones(T, T, dtype=torch.bool).tril(-1),
            ),
            Mistake(
                "it is the upper triangle (the future is visible)",
                lambda T: torch.ones(T, T, dtype=torch.bool).triu(),
            ),
        ),
    ),
    Exercise(
        "ch08.padding_mask",
        "padding_mask(tokens: (B, T), pad_id: int) -> bool (B, 1, 1, T)",
        padding_mask,
        _padding_cases,
        "True where the token is NOT padding, shaped (B, 1, 1, T) to broadcast over heads and queries.",
        (
            Mistake(
                "it is True on the padding",
                lambda tokens, pad: (tokens == pad)[:, None, None, :],
            ),
        ),
    ),
    Exercise(
        "ch08.sinusoidal_encoding",
        "sinusoidal_encoding(T: int, D: int) -> (T, D)",
        _sinusoid,
        _sinusoid_cases,
        "PE(t, 2i) = sin(t ω_i), PE(t, 2i+1) = cos(t ω_i), ω_i = 10000^(−2i/D).",
        (
            Mistake(
                "sin and cos are exchanged", lambda T, D: _sinusoid_with(T, D, 2, True)
            ),
            Mistake(
                "ω_i = 10000^(−i/D): the 2 is missing",
                lambda T, D: _sinusoid_with(T, D, 1, False),
            ),
        ),
        rtol=1e-6,
        atol=1e-10,
    ),
)
