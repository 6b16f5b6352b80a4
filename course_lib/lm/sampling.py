r"""Sampling new text from a language model: temperature, top-k, an end token. Chapter 5.

CS224N lecture 5 generates text by repeated sampling: feed a word, get ŷ^{(t)}, sample
x_{t+1} ~ ŷ^{(t)}, feed it back. Dividing the scores by a temperature τ,
softmax(s / τ), sharpens the distribution (τ < 1) or flattens it (τ > 1); top-k keeps
only the k most likely words (Fan et al., 2018) before sampling.

Every model gives a ``step(token_id, state) -> (scores (V,), state)``: log-probabilities
or logits of the next token, and whatever state it carries (a hidden vector, a window).

Shape legend: V vocabulary, B batch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import Tensor

Step = Callable[[int, Any], tuple[Tensor, Any]]


def sample_next(
    scores: Tensor,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    generator: torch.Generator | None = None,
) -> Tensor:
    """Sample from softmax(scores / τ), restricted to the top k scores when ``top_k``.

    scores: (V,) or (B, V) logits or log-probabilities. Returns () or (B,) indices.
    """
    if not temperature > 0:
        raise ValueError(
            f"temperature must be > 0 (use top_k=1 for greedy decoding), got {temperature!r}"
        )
    if scores.dim() not in (1, 2):
        raise ValueError(f"scores must be (V,) or (B, V), got {tuple(scores.shape)}")
    if top_k is not None and not (isinstance(top_k, int) and top_k >= 1):
        raise ValueError(f"top_k must be a positive int or None, got {top_k!r}")
    s = scores.detach().double() / temperature  # (B?, V)
    if top_k is not None and top_k < s.size(-1):
        kth = s.topk(top_k, dim=-1).values[..., -1:]  # (B?, 1)
        s = s.masked_fill(s < kth, float("-inf"))  # (B?, V)
    p = s.softmax(-1)  # (B?, V)
    flat = p.reshape(-1, p.size(-1))  # (B, V)
    out = torch.multinomial(flat.cpu(), 1, generator=generator).squeeze(-1)  # (B,)
    return out.reshape(p.shape[:-1])  # () or (B,)


def generate(
    step: Step,
    prompt: Sequence[int],
    *,
    max_new_tokens: int,
    state: Any = None,
    temperature: float = 1.0,
    top_k: int | None = None,
    end_id: int | None = None,
    generator: torch.Generator | None = None,
) -> list[int]:
    """Feed ``prompt`` through ``step``, then sample up to ``max_new_tokens`` more.

    Stops after sampling ``end_id`` (kept in the output). Returns the new ids only.
    """
    if len(prompt) == 0:
        raise ValueError("prompt must hold at least one token id (e.g. <eos> to start)")
    if not isinstance(max_new_tokens, int) or max_new_tokens < 0:
        raise ValueError(f"max_new_tokens must be an int >= 0, got {max_new_tokens!r}")
    if not temperature > 0:
        raise ValueError(f"temperature must be > 0, got {temperature!r}")
    scores = None
    for token in prompt:
        scores, state = step(int(token), state)
    new: list[int] = []
    for _ in range(max_new_tokens):
        token = int(
            sample_next(
                scores, temperature=temperature, top_k=top_k, generator=generator
            )
        )
        new.append(token)
        if end_id is not None and token == end_id:
            break
        scores, state = step(token, state)
    return new
