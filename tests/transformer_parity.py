"""What the Transformer parity tests share: seeded float64 inputs and copying the weights of
``nn.MultiheadAttention`` into ours. Used by tests/test_transformer_*.py."""

from __future__ import annotations

import torch
from torch import nn

from course_lib.transformer import MultiHeadAttention


def rand(*shape, seed=0):
    """A float64 N(0, 1) tensor from its own generator (the global RNG is left alone)."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64)


def copy_attention(ours: MultiHeadAttention, ref: nn.MultiheadAttention) -> None:
    """torch packs W_q, W_k, W_v as ``in_proj_weight`` (3D, D); ours as W_qkv, or W_q and
    W_kv for cross-attention."""
    D = ref.embed_dim
    with torch.no_grad():
        if ours.cross:
            ours.W_q.weight.copy_(ref.in_proj_weight[:D])
            ours.W_q.bias.copy_(ref.in_proj_bias[:D])
            ours.W_kv.weight.copy_(ref.in_proj_weight[D:])
            ours.W_kv.bias.copy_(ref.in_proj_bias[D:])
        else:
            ours.W_qkv.weight.copy_(ref.in_proj_weight)
            ours.W_qkv.bias.copy_(ref.in_proj_bias)
        ours.W_o.weight.copy_(ref.out_proj.weight)
        ours.W_o.bias.copy_(ref.out_proj.bias)
