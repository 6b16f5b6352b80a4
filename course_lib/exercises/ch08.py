"""Chapter 8 exercises (Transformers): attention, masks, sinusoidal positions, masked
multi-head attention; and the chapter's questions.

References: ``course_lib.transformer`` (``scaled_dot_product_attention``, ``causal_mask``,
``padding_mask``, ``sinusoidal_encoding``, ``MultiHeadAttention``).
"""

from __future__ import annotations

import math

import torch

from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.exercises.quiz import Question, register_questions
from course_lib.transformer.attention import (
    MultiHeadAttention,
    scaled_dot_product_attention,
)
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


def _mha(x, W_qkv, W_o, mask, H):
    mha = MultiHeadAttention(x.size(-1), H, bias=False).to(x.dtype)
    with torch.no_grad():
        mha.W_qkv.weight.copy_(W_qkv)
        mha.W_o.weight.copy_(W_o)
        return mha(x, mask=mask)[0]  # (B, T, D)


def _mha_cases(gen):
    cases = []
    for i, (B, T, D, H) in enumerate([(2, 5, 8, 2), (1, 4, 12, 3), (2, 3, 8, 4)]):
        x = torch.randn(B, T, D, generator=gen, dtype=torch.float64)
        W_qkv = torch.randn(3 * D, D, generator=gen, dtype=torch.float64) / D**0.5
        W_o = torch.randn(D, D, generator=gen, dtype=torch.float64) / D**0.5
        tokens = torch.ones(B, T, dtype=torch.long)
        tokens[-1, T - 1] = 0  # the last row's last token is padding
        mask = padding_mask(tokens, 0) & causal_mask(T)  # (B, 1, T, T)
        cases.append(Case((x, W_qkv, W_o, mask, H), label=f"random {i}"))
    return cases


def _mha_by(x, W_qkv, W_o, mask, H, *, split, scale, out=True, masked=True):
    B, T, D = x.shape
    q, k, v = (x @ W_qkv.T).chunk(3, dim=-1)  # (B, T, D) each
    q, k, v = (split(t, B, T, H, D // H) for t in (q, k, v))  # (B, H, T, d_k)
    scores = q @ k.transpose(-2, -1) / math.sqrt(scale(D, H))  # (B, H, T, T)
    if masked:
        scores = scores.masked_fill(~mask, float("-inf"))
    heads = scores.softmax(-1) @ v  # (B, H, T, d_k)
    concat = heads.transpose(1, 2).reshape(B, T, D)  # (B, T, D)
    return concat @ W_o.T if out else concat


def _heads(t, B, T, H, d_k):
    return t.view(B, T, H, d_k).transpose(1, 2)  # (B, H, T, d_k)


def _heads_no_transpose(t, B, T, H, d_k):
    return t.reshape(B, H, T, d_k)  # the features of several tokens mixed in one head


def _per_head(D, H):
    return D // H


register(
    Exercise(
        "ch08.masked_mha",
        "masked_mha(x: (B, T, D), W_qkv: (3D, D), W_o: (D, D), mask: bool (B, 1, T, T), H: int) -> (B, T, D)",
        _mha,
        _mha_cases,
        "Q, K, V = chunks of x W_qkvᵀ; split each into H heads as view(B, T, H, d_k) then "
        "transpose(1, 2); softmax(QKᵀ/√d_k) with masked scores at −inf, per head; "
        "concatenate the heads back to (B, T, D) and multiply by W_oᵀ.",
        (
            Mistake(
                "the output projection W_O is left out (the heads only concatenated)",
                lambda *a: _mha_by(*a, split=_heads, scale=_per_head, out=False),
            ),
            Mistake(
                "the heads are split with reshape(B, H, T, d_k), without the transpose",
                lambda *a: _mha_by(*a, split=_heads_no_transpose, scale=_per_head),
            ),
            Mistake(
                "the scores are divided by √D instead of √d_k",
                lambda *a: _mha_by(*a, split=_heads, scale=lambda D, H: D),
            ),
            Mistake(
                "the mask is forgotten",
                lambda *a: _mha_by(*a, split=_heads, scale=_per_head, masked=False),
            ),
        ),
        rtol=1e-6,
        atol=1e-10,
    ),
)

register_questions(
    Question(
        "ch08.mha_parameters",
        "How many parameters has `MultiHeadAttention(512, 8)` (the projections W_Q, W_K, "
        "W_V and W_O, each with a bias)?",
        answer=4 * 512 * 512 + 4 * 512,
        explanation="Four D × D matrices and four biases of D, whatever the number of "
        "heads: 4 · 512² + 4 · 512 = 1,050,624. The heads share the projections; each "
        "gets d_k = 64 of their columns.",
        wrong={
            3 * 512 * 512 + 3 * 512: "That leaves out the output projection W_O.",
            8 * (4 * 512 * 512 + 4 * 512): "The heads do not get a D × D matrix each: "
            "they split D into H parts of d_k = D/H.",
            4 * 512 * 512: "That leaves out the four biases.",
        },
        rel_tol=1e-4,  # the biases are 0.2 % of the count
    ),
    Question(
        "ch08.score_rank",
        "One head with $d_k = 16$ attends over a sentence of $T = 40$ tokens. What is the "
        "largest rank its $40 \\times 40$ score matrix $QK^\\top$ can have?",
        answer=16,
        explanation="Q and K are T × d_k, so $QK^\\top$ has rank at most d_k = 16: some "
        "patterns over 40 tokens are out of one head's reach (Bhojanapalli et al., 2020).",
        wrong={
            40: "The matrix is 40 × 40, but it is a product through d_k = 16 columns.",
            64: "That is the model width of the chapter's folded matrix, not this head's d_k.",
        },
    ),
    Question(
        "ch08.head_removed",
        "One attention head of a trained Transformer translator is removed (its output "
        "zeroed). What usually happens?",
        answer="b",
        explanation="Roles are not assigned to heads; what the model needs is spread over "
        "several, so most single heads cost a little loss and some almost none (Michel et "
        "al., 2019; measured on this chapter's model in Looking inside).",
        choices={
            "a": "the model loses the one skill that head was given, say syntax",
            "b": "the loss rises a little, for some heads hardly at all",
            "c": "nothing at all: the heads are copies of each other",
        },
        wrong={
            "a": "Nothing gives a head a skill: they start random and train on one loss; "
            "removing one rarely removes a skill.",
            "c": "The heads differ (they start from different random weights), and most "
            "cost something when removed.",
        },
    ),
)
