"""Self-attention and multi-head attention (CS224N lecture 8; Vaswani et al., 2017). Chapter 8.

Two paths compute the same numbers: ``MultiHeadAttention.forward`` is the *teaching* path,
softmax(QKᵀ/√d_k)V written out, returning the weights a lesson plots; ``forward_general``
adds what the lecture leaves out (the key/value cache of decoding, a head mask for
ablations, and with ``fast=True`` ``F.scaled_dot_product_attention``: fused kernels, no
weights), and is tested equal.

Masks are bool, True = may attend, broadcastable to (B, H, T_q, T_k) (see ``masks.py``).

Shape legend: B batch, T_q / T_k query / key length, D model width (d_model), H heads,
d_k = D / H per-head width.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib.transformer.masks import check_mask

__all__ = ["MultiHeadAttention", "heads_loop", "scaled_dot_product_attention"]

KV = tuple[Tensor, Tensor]


def _check_qkv(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None) -> None:
    """q, k need the same d_k and k, v the same T_k; the mask must be bool and fit."""
    if q.size(-1) != k.size(-1) or k.size(-2) != v.size(-2):
        raise ValueError(
            f"q, k need the same d_k and k, v the same T_k; got "
            f"{tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}"
        )
    check_mask(mask, q.size(-2), k.size(-2))


def scaled_dot_product_attention(
    q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    r"""Scaled dot-product attention, softmax(QKᵀ/√d_k)V (Vaswani et al., 2017, eq. 1).

    q: (..., T_q, d_k), k: (..., T_k, d_k), v: (..., T_k, d_v); mask: bool, True = may
    attend. Returns the output (..., T_q, d_v) and the weights (..., T_q, T_k), whose
    rows sum to 1; a query that may attend to nothing gets weights 0 and output 0, as in
    ``F.scaled_dot_product_attention``. Chapter 8.
    """
    _check_qkv(q, k, v, mask)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., T_q, T_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # (..., T_q, T_k)
    weights = scores.softmax(dim=-1)  # (..., T_q, T_k)
    if mask is not None:  # a row of -inf gives NaN: nothing to attend to, weights 0
        weights = weights.masked_fill(~mask.any(-1, keepdim=True), 0.0)
    return weights @ v, weights  # (..., T_q, d_v)


class MultiHeadAttention(nn.Module):
    r"""Multi-head attention, MultiHead(Q, K, V) = Concat(head_1..head_H) W_O (Vaswani eq. 4).

    head_h = Attention(X W_Q^h, C W_K^h, C W_V^h), with C = X for self-attention. Chapter 8.

    Self-attention (``cross=False``) projects Q, K, V with one fused (D, 3D) matrix ``W_qkv``
    and splits the result with ``chunk``; cross-attention (``cross=True``) projects the
    queries with ``W_q`` and the keys and values of the context with a fused ``W_kv``.
    The weight layout matches ``nn.MultiheadAttention.in_proj_weight`` (rows q, k, v), so
    weights can be copied in for parity tests.

    Args:
        d_model: D, the model width; n_heads: H, which must divide D.
        dropout: on the attention weights (training only).
        fast: default for ``forward``: use ``F.scaled_dot_product_attention`` (no weights).

    ``head_mask`` (None, or a float tensor (H,)) scales each head's output before the
    concatenation: 1 keeps head h, 0 removes its term head_h W_O^h from the output (an
    ablation, Michel et al., 2019); None, the default, is a mask of ones.
    """

    def __init__(
        self,
        d_model: int,
        n_heads: int,
        *,
        cross: bool = False,
        dropout: float = 0.0,
        bias: bool = True,
        fast: bool = False,
        device: torch.device | str | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(d_model, int) or not isinstance(n_heads, int):
            raise TypeError(
                f"d_model and n_heads must be ints; got {d_model!r}, {n_heads!r}"
            )
        if n_heads < 1 or d_model < 1 or d_model % n_heads:
            raise ValueError(
                f"d_model must be divisible by n_heads (each head gets d_model / n_heads "
                f"features); got d_model={d_model}, n_heads={n_heads}"
            )
        self.d_model, self.n_heads, self.d_k = d_model, n_heads, d_model // n_heads
        self.cross, self.fast, self.dropout = cross, fast, float(dropout)
        if cross:
            self.W_q = nn.Linear(d_model, d_model, bias=bias, device=device)
            self.W_kv = nn.Linear(d_model, 2 * d_model, bias=bias, device=device)
        else:
            self.W_qkv = nn.Linear(d_model, 3 * d_model, bias=bias, device=device)
        self.W_o = nn.Linear(d_model, d_model, bias=bias, device=device)
        self.head_mask: Tensor | None = None  # (H,): see the class docstring

    def split_heads(self, x: Tensor) -> Tensor:
        """(B, T, D) -> (B, H, T, d_k): a ``view`` (no copy), then a transpose."""
        B, T, _ = x.shape
        return x.view(B, T, self.n_heads, self.d_k).transpose(1, 2)  # (B, H, T, d_k)

    def merge_heads(self, x: Tensor) -> Tensor:
        """(B, H, T, d_k) -> (B, T, D): the transpose leaves x non-contiguous, so ``reshape``."""
        B, _, T, _ = x.shape
        return x.transpose(1, 2).reshape(B, T, self.d_model)  # (B, T, D)

    def project(
        self, x: Tensor, context: Tensor | None = None
    ) -> tuple[Tensor, Tensor, Tensor]:
        """Queries from x, keys and values from context (x for self-attention), in heads."""
        if self.cross:
            q = self.W_q(x)  # (B, T_q, D)
            k, v = self.W_kv(context).chunk(2, dim=-1)  # (B, T_k, D) each
        else:
            q, k, v = self.W_qkv(x).chunk(3, dim=-1)  # (B, T_q, D) each
        return self.split_heads(q), self.split_heads(k), self.split_heads(v)

    def _check_inputs(
        self, x: Tensor, context: Tensor | None, mask: Tensor | None, past_kv: KV | None
    ) -> None:
        """x must be (B >= 1, T, D); cross-attention needs a context or a cache; the
        mask must be bool and fit (…, T_q, T_k)."""
        if not isinstance(x, Tensor) or x.dim() != 3 or x.size(-1) != self.d_model:
            shape = tuple(x.shape) if isinstance(x, Tensor) else type(x).__name__
            raise ValueError(f"x must be (B, T, {self.d_model}); got {shape}")
        if x.size(0) == 0:
            raise ValueError("x is an empty batch (B = 0); pass at least one sequence")
        if self.cross and context is None and past_kv is None:
            raise ValueError("cross-attention needs a context (B, T_k, D) or past_kv")
        if not self.cross and context is not None:
            raise ValueError(
                "self-attention takes no context; build it with cross=True"
            )
        if past_kv is not None:  # cross: the cached keys; self: cached + new
            T_k = past_kv[0].size(-2) + (0 if self.cross else x.size(1))
        else:
            T_k = context.size(-2) if self.cross else x.size(1)
        check_mask(mask, x.size(1), T_k)

    def forward(
        self,
        x: Tensor,
        context: Tensor | None = None,
        *,
        mask: Tensor | None = None,
        past_kv: KV | None = None,
        fast: bool | None = None,
    ) -> tuple[Tensor, Tensor | None, KV]:
        """MultiHead(X, C) = Concat(head_1, ..., head_H) W_O (Vaswani et al., eq. 4), with
        head_h = softmax(Q_h K_hᵀ / √d_k) V_h (eq. 1), all heads in one batched matmul.

        Attends from x (B, T_q, D) to context (B, T_k, D), C = x without ``cross``.
        mask: bool (B or 1, H or 1, T_q, T_k), True = may attend. Returns the output
        (B, T_q, D), the weights (B, H, T_q, T_k) (None on the fast path) and the keys and
        values (B, H, T_k, d_k) to cache. The cache (``past_kv``), the fused kernel
        (``fast``) and ``head_mask`` go through :meth:`forward_general`.
        """
        self._check_inputs(x, context, mask, past_kv)
        fast = self.fast if fast is None else fast
        if fast or past_kv is not None or self.head_mask is not None:
            return self.forward_general(x, context, mask, past_kv, fast)  # same numbers
        q, k, v = self.project(x, context)  # (B, H, T_q | T_k, d_k): Q_h, K_h, V_h
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)  # (B, H, T_q, T_k)
        if mask is not None:  # True = may attend
            scores = scores.masked_fill(~mask, float("-inf"))  # (B, H, T_q, T_k)
        weights = scores.softmax(dim=-1)  # (B, H, T_q, T_k): each row sums to 1
        if mask is not None:  # a row of -inf gives NaN: nothing to attend to, weights 0
            weights = weights.masked_fill(~mask.any(-1, keepdim=True), 0.0)
        if self.training and self.dropout > 0:
            weights = F.dropout(weights, self.dropout)  # (B, H, T_q, T_k)
        heads = weights @ v  # (B, H, T_q, d_k): head_h for every h
        concat = self.merge_heads(heads)  # (B, T_q, D): Concat(head_1, ..., head_H)
        return self.W_o(concat), weights, (k, v)  # (B, T_q, D)

    def forward_general(
        self,
        x: Tensor,
        context: Tensor | None,
        mask: Tensor | None,
        past_kv: KV | None,
        fast: bool,
    ) -> tuple[Tensor, Tensor | None, KV]:
        """:meth:`forward` with what the lecture leaves out, computing the same numbers.

        The key/value cache ``past_kv`` (B, H, T_past, d_k): cross-attention reuses it
        (the encoder's keys and values, computed once) and ignores ``context``;
        self-attention appends the new keys and values to it. ``fast``: the fused
        ``F.scaled_dot_product_attention`` (no weights formed, None returned). The head
        mask scales head h's output by ``head_mask[h]`` (an ablation).
        """
        if self.cross and past_kv is not None:
            q, (k, v) = self.split_heads(self.W_q(x)), past_kv  # (B, H, T_q | T_k, d_k)
        else:
            q, k, v = self.project(x, context)  # (B, H, T, d_k)
            if past_kv is not None:
                k = torch.cat([past_kv[0], k], dim=2)  # (B, H, T_past + T_q, d_k)
                v = torch.cat([past_kv[1], v], dim=2)  # (B, H, T_past + T_q, d_k)
        if fast:
            p = self.dropout if self.training else 0.0  # dropout on the weights
            heads = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
            weights = None
        else:
            heads, weights = scaled_dot_product_attention(
                q, k, v, mask
            )  # (B,H,T_q,d_k)
            if self.training and self.dropout > 0:
                weights = F.dropout(weights, self.dropout)  # (B, H, T_q, T_k)
                heads = weights @ v  # (B, H, T_q, d_k)
        if self.head_mask is not None:  # an ablation: head h's output times mask[h]
            heads = heads * self.head_mask.to(heads).view(-1, 1, 1)  # (B, H, T_q, d_k)
        return self.W_o(self.merge_heads(heads)), weights, (k, v)  # (B, T_q, D)


def heads_loop(
    mha: MultiHeadAttention,
    x: Tensor,
    context: Tensor | None = None,
    mask: Tensor | None = None,
) -> Tensor:
    """Multi-head attention as a Python loop over heads: the batched 4-D matmul, unrolled.

    Slices head h's columns out of the projections, attends, concatenates, applies W_O.
    Slow and plain; tests check that ``mha(x, context, mask=mask)`` equals it. Chapter 8.
    """
    ctx = x if context is None else context
    if mha.cross:
        q_all = mha.W_q(x)  # (B, T_q, D)
        k_all, v_all = mha.W_kv(ctx).chunk(2, dim=-1)  # (B, T_k, D)
    else:
        q_all, k_all, v_all = mha.W_qkv(x).chunk(3, dim=-1)  # (B, T, D)
    heads = []
    for h in range(mha.n_heads):
        cols = slice(h * mha.d_k, (h + 1) * mha.d_k)
        m = mask
        if mask is not None and mask.dim() == 4:
            m = mask[:, min(h, mask.size(1) - 1)]  # (B or 1, T_q, T_k)
        out, _ = scaled_dot_product_attention(
            q_all[..., cols], k_all[..., cols], v_all[..., cols], m
        )  # (B, T_q, d_k)
        heads.append(out)
    return mha.W_o(torch.cat(heads, dim=-1))  # (B, T_q, D)
