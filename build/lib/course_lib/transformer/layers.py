"""Transformer encoder and decoder layers: attention, FFN, residuals, LayerNorm. Chapter 8.

CS224N lecture 8; Vaswani et al. (2017) §3.1–3.3; pre-LN from Xiong et al. (2020),
"On Layer Normalization in the Transformer Architecture".

Each sub-layer f (self-attention, cross-attention, feed-forward) is wrapped in a residual
connection and a LayerNorm over the feature dimension D, in one of two orders:

    post-LN (the 2017 paper):  x ← LayerNorm(x + f(x))
    pre-LN  (norm_first=True): x ← x + f(LayerNorm(x))

Attribute names and sub-layer order follow ``nn.TransformerEncoderLayer`` /
``nn.TransformerDecoderLayer`` so weights can be copied across for the parity tests.

Shape legend: B batch, S source length, T target length, D model width, F FFN width.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor, nn

from course_lib.transformer.attention import KV, MultiHeadAttention

__all__ = ["DecoderLayer", "DecoderOutput", "EncoderLayer", "FeedForward"]


class FeedForward(nn.Module):
    """FFN(x) = max(0, x W_1 + b_1) W_2 + b_2 (Vaswani eq. 2), position by position.

    The nonlinearity the attention sub-layer lacks: attention only re-averages values.
    """

    def __init__(
        self,
        d_model: int,
        d_ff: int,
        *,
        dropout: float = 0.0,
        device: torch.device | str | None = None,
    ) -> None:
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff, device=device)
        self.linear2 = nn.Linear(d_ff, d_model, device=device)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        """x: (B, T, D) -> (B, T, D)."""
        h = self.dropout(torch.relu(self.linear1(x)))  # (B, T, F)
        return self.linear2(h)  # (B, T, D)


def _check_sizes(d_model: int, n_heads: int, d_ff: int, dropout: float) -> None:
    if d_ff < 1:
        raise ValueError(f"d_ff must be >= 1; got {d_ff}")
    if not 0.0 <= dropout < 1.0:
        raise ValueError(f"dropout must be in [0, 1); got {dropout}")


class _SublayerStack(nn.Module):
    """The parts both layers share, created in torch's order: ``self_attn``
    (``cross_attn`` too when ``cross``), ``ffn``, then one LayerNorm ``norm{i}`` and one
    Dropout ``dropout{i}`` per sub-layer (2, or 3 with cross-attention)."""

    cross = False

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        d_ff: int,
        *,
        dropout: float = 0.1,
        norm_first: bool = True,
        fast: bool = False,
        device: torch.device | str | None = None,
    ) -> None:
        super().__init__()
        _check_sizes(d_model, n_heads, d_ff, dropout)
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(
            d_model, n_heads, dropout=dropout, fast=fast, device=device
        )
        if self.cross:
            self.cross_attn = MultiHeadAttention(
                d_model, n_heads, cross=True, dropout=dropout, fast=fast, device=device
            )
        self.ffn = FeedForward(d_model, d_ff, dropout=dropout, device=device)
        self.norm1 = nn.LayerNorm(d_model, device=device)
        self.norm2 = nn.LayerNorm(d_model, device=device)
        if self.cross:
            self.norm3 = nn.LayerNorm(d_model, device=device)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        if self.cross:
            self.dropout3 = nn.Dropout(dropout)


class EncoderLayer(_SublayerStack):
    """One encoder block: self-attention then FFN, each with residual + LayerNorm.

    ``EncoderLayer(d_model, n_heads, d_ff, *, dropout=0.1, norm_first=True, fast=False,
    device=None)``. forward(x (B, S, D), mask bool broadcastable to (B, H, S, S)) ->
    (x (B, S, D), weights (B, H, S, S) or None on the fast path). Chapter 8.
    """

    def forward(
        self, x: Tensor, mask: Tensor | None = None, *, fast: bool | None = None
    ) -> tuple[Tensor, Tensor | None]:
        if self.norm_first:
            a, w, _ = self.self_attn(self.norm1(x), mask=mask, fast=fast)  # (B, S, D)
            x = x + self.dropout1(a)  # (B, S, D)
            x = x + self.dropout2(self.ffn(self.norm2(x)))  # (B, S, D)
        else:
            a, w, _ = self.self_attn(x, mask=mask, fast=fast)  # (B, S, D)
            x = self.norm1(x + self.dropout1(a))  # (B, S, D)
            x = self.norm2(x + self.dropout2(self.ffn(x)))  # (B, S, D)
        return x, w


class DecoderOutput(NamedTuple):
    """What a decoder layer returns: its output, both attention weights, its cache."""

    y: Tensor  # (B, T, D)
    self_weights: Tensor | None  # (B, H, T, T_past + T)
    cross_weights: Tensor | None  # (B, H, T, S)
    cache: dict[str, KV]  # "self": keys/values so far, "cross": the memory's


class DecoderLayer(_SublayerStack):
    """One decoder block: masked self-attention, cross-attention, FFN; residual + LayerNorm.

    Same arguments as :class:`EncoderLayer`. Cross-attention takes queries from the decoder
    and keys/values from the encoder's output ``memory``, so T (target) and S (source) may
    differ. Chapter 8.
    """

    cross = True

    def forward(
        self,
        y: Tensor,
        memory: Tensor,
        *,
        self_mask: Tensor | None = None,
        cross_mask: Tensor | None = None,
        cache: dict[str, KV] | None = None,
        fast: bool | None = None,
    ) -> DecoderOutput:
        """y: (B, T, D) target states, memory: (B, S, D) encoder output.

        self_mask: bool (…, T, T_past + T), causal and padding; cross_mask: bool (…, 1|T, S),
        the source's padding. cache: the dict a previous call returned (decoding step by
        step): its keys/values are reused, and the new ones come back in ``.cache``.
        """
        cache = cache or {}
        past_self, past_cross = cache.get("self"), cache.get("cross")
        h = self.norm1(y) if self.norm_first else y  # (B, T, D)
        a, w_self, kv_self = self.self_attn(
            h, mask=self_mask, past_kv=past_self, fast=fast
        )  # (B, T, D)
        y = (
            y + self.dropout1(a)
            if self.norm_first
            else self.norm1(y + self.dropout1(a))
        )
        h = self.norm2(y) if self.norm_first else y  # (B, T, D)
        c, w_cross, kv_cross = self.cross_attn(
            h, memory, mask=cross_mask, past_kv=past_cross, fast=fast
        )  # (B, T, D)
        y = (
            y + self.dropout2(c)
            if self.norm_first
            else self.norm2(y + self.dropout2(c))
        )
        if self.norm_first:
            y = y + self.dropout3(self.ffn(self.norm3(y)))  # (B, T, D)
        else:
            y = self.norm3(y + self.dropout3(self.ffn(y)))  # (B, T, D)
        return DecoderOutput(y, w_self, w_cross, {"self": kv_self, "cross": kv_cross})
