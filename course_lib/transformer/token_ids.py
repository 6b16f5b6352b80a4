"""The one check every model that embeds token ids makes at its public boundary.

``nn.Embedding`` looks ids up without asking whether they exist: an id at or above the
vocabulary size fails deep inside ``F.embedding`` ("index out of range in self") on the CPU
and as a device-side assert on a GPU. The Transformer (Chapter 8), GPT and the encoder
(Chapter 9) call :func:`check_token_ids` first, so bad input gets an error that says what was
wrong.
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["check_token_ids"]


def check_token_ids(tokens: Tensor, vocab_size: int, name: str = "tokens") -> None:
    """A (B, T) integer tensor, B, T >= 1, of ids in 0 … vocab_size − 1, or a clear error."""
    if not isinstance(tokens, Tensor) or tokens.dim() != 2:
        raise ValueError(f"{name} must be a (B, T) tensor of ids; got {tokens!r:.60}")
    if (
        tokens.dtype.is_floating_point
        or tokens.dtype.is_complex
        or tokens.dtype == torch.bool
    ):
        raise TypeError(f"{name} must hold integer ids; got dtype {tokens.dtype}")
    if tokens.size(0) == 0 or tokens.size(1) == 0:
        raise ValueError(
            f"{name} is empty (shape {tuple(tokens.shape)}); need B, T >= 1"
        )
    low, high = int(tokens.min()), int(tokens.max())
    if low < 0 or high >= vocab_size:
        bad = low if low < 0 else high
        raise ValueError(
            f"{name} holds the id {bad}, outside the vocabulary of {vocab_size} "
            f"(ids 0 … {vocab_size - 1}); was it encoded with another vocabulary?"
        )
