"""What the pretrained models of Chapter 9 share: their size checks, their embeddings and
blocks, and scoring in float32.

The GPT (:mod:`~course_lib.pretraining.gpt`) and the encoder
(:mod:`~course_lib.pretraining.encoder`) are built the same way (token embeddings, learned
positions, pre-LN blocks, a final LayerNorm); every loss of the chapter scores bf16 logits in
float32.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor, nn

from course_lib.transformer.positional import LearnedPositionalEncoding

__all__ = ["at_least_float32", "check_sizes", "embeddings_and_blocks"]


def check_sizes(config) -> None:
    """The sizes a GPT or an encoder config needs: positive ints, d_model divisible by n_heads."""
    for name in ("vocab_size", "d_model", "n_heads", "d_ff", "n_layers", "max_len"):
        value = getattr(config, name)
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an int >= 1; got {value!r}")
    if config.d_model % config.n_heads:
        raise ValueError(
            f"d_model must be divisible by n_heads; got {config.d_model}, {config.n_heads}"
        )


def at_least_float32(x: Tensor) -> Tensor:
    """x in float32, or in its own dtype when wider (float64 stays float64): bf16 logits
    are scored in float32."""
    return x.to(torch.promote_types(x.dtype, torch.float32))


def embeddings_and_blocks(
    c: Any, block: type[nn.Module], device: torch.device | str | None
) -> tuple[nn.Embedding, LearnedPositionalEncoding, nn.ModuleList, nn.LayerNorm]:
    """What the chapter's GPT and encoder share: token embeddings (std D^-0.5), learned
    positions, ``n_layers`` pre-LN blocks of class ``block``, and the final LayerNorm."""
    embed = nn.Embedding(c.vocab_size, c.d_model, device=device)
    nn.init.normal_(embed.weight, std=c.d_model**-0.5)
    pos = LearnedPositionalEncoding(
        c.max_len, c.d_model, dropout=c.dropout, device=device
    )
    blocks = nn.ModuleList(
        block(
            c.d_model,
            c.n_heads,
            c.d_ff,
            dropout=c.dropout,
            norm_first=True,
            fast=c.fast,
            device=device,
        )
        for _ in range(c.n_layers)
    )
    return embed, pos, blocks, nn.LayerNorm(c.d_model, device=device)
