r"""Sampling from a model: temperature, top-k and top-p (nucleus), an end token. Chapters 5, 9.

CS224N lectures 5 and 9 generate text by repeated sampling: feed a token, get
ŷ_t = P(· | y_<t), draw y_t ~ ŷ_t, feed it back. Dividing the scores by a temperature τ,
softmax(s / τ), sharpens the distribution (τ < 1) or flattens it (τ > 1); top-k keeps only
the k most likely tokens (Fan et al., 2018); top-p keeps the smallest set of most likely
tokens whose probabilities sum to at least p (nucleus sampling, Holtzman et al., 2020).
Any model with ``step`` and ``reorder`` (:mod:`course_lib.decoding.protocol`) is sampled.

Shape legend: N rows, V vocabulary, P prompt length.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from course_lib.decoding.protocol import Decodable
from course_lib.decoding.search import ALPHA, Hypothesis, generate

__all__ = ["filter_scores", "sample", "sample_next"]


def _check_filters(temperature: float, top_k: int | None, top_p: float | None) -> None:
    if not temperature > 0:
        raise ValueError(
            f"temperature must be > 0 (use top_k=1 for greedy decoding), got {temperature!r}"
        )
    if top_k is not None and not (
        isinstance(top_k, int) and not isinstance(top_k, bool) and top_k >= 1
    ):
        raise ValueError(f"top_k must be a positive int or None, got {top_k!r}")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1] or None, got {top_p!r}")


def _check_filter_inputs(
    scores: Tensor, temperature: float, top_k: int | None, top_p: float | None
) -> None:
    """The filters' settings (:func:`_check_filters`), then scores (N, V)."""
    _check_filters(temperature, top_k, top_p)
    if scores.dim() != 2:
        raise ValueError(f"scores must be (N, V), got {tuple(scores.shape)}")


def filter_scores(
    scores: Tensor,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
) -> Tensor:
    """s / τ with every token outside the top k and outside the nucleus set to -inf.

    scores: (N, V) logits or log-probabilities. Returns (N, V) float64 scores whose
    softmax is the distribution :func:`sample_next` draws from.
    """
    _check_filter_inputs(scores, temperature, top_k, top_p)
    s = scores.detach().double() / temperature  # (N, V)
    if top_k is not None and top_k < s.size(-1):
        kth = s.topk(top_k, dim=-1).values[:, -1:]  # (N, 1)
        s = s.masked_fill(s < kth, float("-inf"))  # (N, V)
    if top_p is not None and top_p < 1:
        p, order = s.softmax(-1).sort(dim=-1, descending=True)  # (N, V) each
        before = p.cumsum(-1) - p  # (N, V): mass of the more likely tokens
        drop = torch.zeros_like(s, dtype=torch.bool).scatter(1, order, before >= top_p)
        s = s.masked_fill(drop, float("-inf"))  # (N, V): the first token always stays
    return s


def sample_next(
    scores: Tensor,
    *,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
) -> Tensor:
    """Draw one token per row from softmax(:func:`filter_scores`): (N, V) -> (N,) ids.

    The draw runs on the CPU with ``generator``, so a seed gives the same text on any
    device.
    """
    s = filter_scores(scores, temperature=temperature, top_k=top_k, top_p=top_p)
    p = s.softmax(-1).cpu()  # (N, V)
    return torch.multinomial(p, 1, generator=generator).squeeze(1).to(scores.device)


def sample(
    model: Decodable,
    prompt: Any,
    state: Any = None,
    *,
    max_new_tokens: int,
    eos: int | None = None,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
    alpha: float = ALPHA,
) -> list[Hypothesis]:
    """Feed ``prompt`` (B, P), then draw up to ``max_new_tokens`` tokens per row; a row
    stops after drawing ``eos``. Returns B hypotheses; ``log_prob`` is the model's own
    log-probability of the drawn tokens (before temperature and filtering)."""
    _check_filters(temperature, top_k, top_p)

    def draw(log_p: Tensor) -> Tensor:  # (B, V) -> (B,)
        return sample_next(
            log_p,
            temperature=temperature,
            top_k=top_k,
            top_p=top_p,
            generator=generator,
        )

    return generate(
        model, prompt, state, draw, eos=eos, max_len=max_new_tokens, alpha=alpha
    )
