"""Attention masks: padding, causal, and both (CS224N lecture 8). Chapter 8.

Convention of the whole package: a mask is a bool tensor, **True = may attend**,
broadcastable to the scores' shape (B, H, T_q, T_k). ``nn.MultiheadAttention`` uses the
opposite (True = masked out) for its bool masks; the parity tests convert with ``~``.

Shape legend: B batch, H heads, T_q query length, T_k key length, T sequence length.
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["causal_mask", "check_mask", "decoder_mask", "padding_mask"]


def padding_mask(tokens: Tensor, pad_id: int) -> Tensor:
    """Keys that are real tokens: (B, T) ids -> bool (B, 1, 1, T), True where not ``pad_id``.

    Used in encoder self-attention and in cross-attention (the source's padding), and,
    combined with the causal mask, in decoder self-attention.
    """
    if tokens.dim() != 2:
        raise ValueError(f"tokens must be (B, T) ids; got shape {tuple(tokens.shape)}")
    if tokens.dtype.is_floating_point or tokens.dtype == torch.bool:
        raise TypeError(f"tokens must be integer ids; got dtype {tokens.dtype}")
    return (tokens != pad_id)[:, None, None, :]  # (B, 1, 1, T)


def causal_mask(T: int, device: torch.device | str | None = None) -> Tensor:
    """No peeking at the future: bool (T, T), True on and below the diagonal (j <= i)."""
    if T < 1:
        raise ValueError(f"T must be >= 1; got {T}")
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()  # (T, T)


def decoder_mask(tokens: Tensor, pad_id: int) -> Tensor:
    """Decoder self-attention: causal AND not padding, bool (B, 1, T, T)."""
    T = tokens.size(-1)
    return causal_mask(T, tokens.device) & padding_mask(tokens, pad_id)  # (B, 1, T, T)


def check_mask(mask: Tensor | None, T_q: int, T_k: int) -> None:
    """Raise a ``TypeError``/``ValueError`` unless ``mask`` is bool and fits (…, T_q, T_k).

    A float mask would be *added* to the scores by ``F.scaled_dot_product_attention`` and
    mean the opposite of a 0/1 bool mask, so only bool is accepted.
    """
    if mask is None:
        return
    if not isinstance(mask, Tensor):
        raise TypeError(
            f"mask must be a bool tensor or None; got {type(mask).__name__}"
        )
    if mask.dtype != torch.bool:
        raise TypeError(
            f"mask must have dtype torch.bool (True = may attend); got {mask.dtype}. "
            "Convert with mask.bool() if 1 means 'may attend'."
        )
    if mask.dim() < 2 or mask.size(-1) not in (1, T_k) or mask.size(-2) not in (1, T_q):
        raise ValueError(
            f"mask must broadcast to (..., T_q={T_q}, T_k={T_k}); got {tuple(mask.shape)}"
        )
