r"""Attention scoring functions and the masked softmax. Chapter 7.

CS224N lecture 7; Bahdanau et al. (2015), Luong et al. (2015). A query s (the decoder
state) scores every key h_i (the encoder states); a softmax over the *real* source positions
gives the weights α_i, and the context is c = Σ_i α_i h_i.

- dot product       e_i = sᵀ h_i                 (needs d_q = d_k; no parameters)
- multiplicative    e_i = sᵀ W h_i               (W: d_q × d_k)
- low-rank mult.    e_i = sᵀ (Uᵀ V) h_i = (U s)ᵀ (V h_i)   (U: k × d_q, V: k × d_k, k ≪ d)
- additive          e_i = vᵀ tanh(W_1 h_i + W_2 s)         (Bahdanau)

Every scorer splits its work in two: ``project_keys(h)`` once per source sentence (the part
that does not depend on the query), then ``forward(s, projected)`` at every decoder step.
Shape letters: B batch, S source length, Dq query width, Dk key width, A attention width.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

__all__ = [
    "AdditiveScore",
    "DotProductScore",
    "LowRankMultiplicativeScore",
    "MultiplicativeScore",
    "attend",
    "make_scorer",
    "masked_softmax",
]


def masked_softmax(scores: Tensor, mask: Tensor) -> Tensor:
    """softmax over the last axis where ``mask`` is True; exactly 0 on padding.

    scores (..., S); mask (..., S) bool, True = a real source position. A row with no real
    position is an error (an empty source sentence has nothing to attend to).
    """
    if mask.dtype != torch.bool:
        raise TypeError(f"mask must be a bool tensor (True = real); got {mask.dtype}")
    if mask.shape != scores.shape:
        mask = mask.expand_as(scores)
    if not bool(mask.any(-1).all()):
        raise ValueError(
            "every row needs at least one real position: an empty source sentence has "
            "nothing to attend to"
        )
    scores = scores.masked_fill(~mask, float("-inf"))  # (..., S)
    return torch.softmax(scores, dim=-1)  # (..., S), 0 where masked


class DotProductScore(nn.Module):
    """e_i = sᵀ h_i (Luong et al., 2015, "dot"); no parameters, d_q must equal d_k."""

    def __init__(
        self, d_query: int, d_key: int, *, device: torch.device | str | None = None
    ) -> None:
        super().__init__()  # no parameters: device is accepted for a uniform interface
        if d_query != d_key:
            raise ValueError(
                f"dot-product attention needs d_query == d_key; got {d_query} and {d_key} "
                "(use the multiplicative or additive score)"
            )

    def project_keys(self, keys: Tensor) -> Tensor:
        return keys  # (B, S, Dk)

    def forward(self, query: Tensor, projected: Tensor) -> Tensor:
        return (projected @ query.unsqueeze(-1)).squeeze(-1)  # (B, S)


class MultiplicativeScore(nn.Module):
    """e_i = sᵀ W h_i (Luong et al., 2015, "general"): d_q · d_k parameters."""

    def __init__(
        self, d_query: int, d_key: int, *, device: torch.device | str | None = None
    ) -> None:
        super().__init__()
        self.W = nn.Linear(d_key, d_query, bias=False, device=device)

    def project_keys(self, keys: Tensor) -> Tensor:
        return self.W(keys)  # (B, S, Dq): W h_i

    def forward(self, query: Tensor, projected: Tensor) -> Tensor:
        return (projected @ query.unsqueeze(-1)).squeeze(-1)  # (B, S)


class LowRankMultiplicativeScore(nn.Module):
    """e_i = (U s)ᵀ (V h_i), i.e. W = Uᵀ V of rank k: k (d_q + d_k) parameters."""

    def __init__(
        self,
        d_query: int,
        d_key: int,
        rank: int,
        *,
        device: torch.device | str | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(rank, int) or rank < 1:
            raise ValueError(f"rank must be a positive int; got {rank!r}")
        self.U = nn.Linear(d_query, rank, bias=False, device=device)
        self.V = nn.Linear(d_key, rank, bias=False, device=device)

    def project_keys(self, keys: Tensor) -> Tensor:
        return self.V(keys)  # (B, S, k)

    def forward(self, query: Tensor, projected: Tensor) -> Tensor:
        return (projected @ self.U(query).unsqueeze(-1)).squeeze(-1)  # (B, S)

    def full_matrix(self) -> Tensor:
        """W = Uᵀ V (d_q × d_k), the multiplicative score's matrix it stands for."""
        return self.U.weight.T @ self.V.weight  # (Dq, Dk)


class AdditiveScore(nn.Module):
    """e_i = vᵀ tanh(W_1 h_i + W_2 s) (Bahdanau et al., 2015, eq. A.1.2)."""

    def __init__(
        self,
        d_query: int,
        d_key: int,
        d_attn: int,
        *,
        device: torch.device | str | None = None,
    ) -> None:
        super().__init__()
        self.W1 = nn.Linear(d_key, d_attn, bias=False, device=device)
        self.W2 = nn.Linear(d_query, d_attn, bias=False, device=device)
        self.v = nn.Linear(d_attn, 1, bias=False, device=device)

    def project_keys(self, keys: Tensor) -> Tensor:
        return self.W1(keys)  # (B, S, A)

    def forward(self, query: Tensor, projected: Tensor) -> Tensor:
        hidden = torch.tanh(projected + self.W2(query).unsqueeze(1))  # (B, S, A)
        return self.v(hidden).squeeze(-1)  # (B, S)


def make_scorer(
    kind: str,
    d_query: int,
    d_key: int,
    *,
    d_attn: int = 64,
    device: torch.device | str | None = None,
) -> nn.Module:
    """A scorer by name: ``dot | multiplicative | low_rank | additive``, on ``device``.

    ``d_attn`` is the additive score's hidden width, or the low-rank score's rank k.
    """
    if kind == "dot":
        return DotProductScore(d_query, d_key, device=device)
    if kind == "multiplicative":
        return MultiplicativeScore(d_query, d_key, device=device)
    if kind == "low_rank":
        return LowRankMultiplicativeScore(d_query, d_key, d_attn, device=device)
    if kind == "additive":
        return AdditiveScore(d_query, d_key, d_attn, device=device)
    raise ValueError(
        f"attention must be one of dot, multiplicative, low_rank, additive; got {kind!r}"
    )


def attend(
    scorer: nn.Module,
    query: Tensor,
    keys: Tensor,
    mask: Tensor,
    projected: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    r"""One attention read: α = masked_softmax(e), c = Σ_i α_i h_i. Chapter 7.

    query (B, Dq), keys (B, S, Dk) (also the values), mask (B, S) bool; ``projected`` is
    ``scorer.project_keys(keys)`` when it was computed once beforehand.
    Returns the context (B, Dk) and the weights (B, S), 0 on padding, rows summing to 1.
    """
    if keys.dim() != 3 or query.dim() != 2 or keys.shape[:1] != query.shape[:1]:
        raise ValueError(
            f"query must be (B, Dq) and keys (B, S, Dk); got {tuple(query.shape)} and "
            f"{tuple(keys.shape)}"
        )
    if mask.shape != keys.shape[:2]:
        raise ValueError(
            f"mask must be (B, S) = {tuple(keys.shape[:2])}; got {tuple(mask.shape)}"
        )
    if projected is None:
        projected = scorer.project_keys(keys)  # (B, S, *)
    weights = masked_softmax(scorer(query, projected), mask)  # (B, S)
    context = (weights.unsqueeze(1) @ keys).squeeze(1)  # (B, Dk)
    return context, weights
