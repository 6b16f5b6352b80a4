"""Encoder and decoder layers vs nn.TransformerEncoderLayer / DecoderLayer (Chapter 8)."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from course_lib.transformer import (
    DecoderLayer,
    EncoderLayer,
    MultiHeadAttention,
    causal_mask,
    padding_mask,
)

D, H, F_, B = 12, 3, 20, 2


def _rand(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=torch.float64)


def _copy_attn(ours: MultiHeadAttention, ref: nn.MultiheadAttention) -> None:
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


def _copy_common(ours, ref, norms):
    ours.ffn.linear1.load_state_dict(ref.linear1.state_dict())
    ours.ffn.linear2.load_state_dict(ref.linear2.state_dict())
    for n in norms:
        getattr(ours, n).load_state_dict(getattr(ref, n).state_dict())


def _randomise_norms(module):
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_matches_torch(norm_first):
    torch.manual_seed(0)
    ref = nn.TransformerEncoderLayer(
        D,
        H,
        F_,
        dropout=0.0,
        batch_first=True,
        norm_first=norm_first,
        dtype=torch.float64,
    )
    _randomise_norms(ref)
    ours = EncoderLayer(D, H, F_, dropout=0.0, norm_first=norm_first).double()
    with torch.no_grad():
        _copy_attn(ours.self_attn, ref.self_attn)
        _copy_common(ours, ref, ["norm1", "norm2"])
    tokens = torch.tensor([[4, 5, 6, 7, 8], [4, 5, 6, 0, 0]])
    x = _rand(B, 5, D, seed=1).requires_grad_()
    theirs = ref(x, src_key_padding_mask=tokens == 0)
    out, w = ours(x, padding_mask(tokens, 0))
    torch.testing.assert_close(out, theirs, rtol=1e-10, atol=1e-12)
    assert w.shape == (B, H, 5, 5)
    g = _rand(B, 5, D, seed=2)
    torch.testing.assert_close(
        torch.autograd.grad(out, x, g)[0],
        torch.autograd.grad(theirs, x, g)[0],
        rtol=1e-9,
        atol=1e-11,
    )


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_matches_torch(norm_first):
    torch.manual_seed(3)
    ref = nn.TransformerDecoderLayer(
        D,
        H,
        F_,
        dropout=0.0,
        batch_first=True,
        norm_first=norm_first,
        dtype=torch.float64,
    )
    _randomise_norms(ref)
    ours = DecoderLayer(D, H, F_, dropout=0.0, norm_first=norm_first).double()
    with torch.no_grad():
        _copy_attn(ours.self_attn, ref.self_attn)
        _copy_attn(ours.cross_attn, ref.multihead_attn)
        _copy_common(ours, ref, ["norm1", "norm2", "norm3"])
    src = torch.tensor([[4, 5, 6, 7, 8, 9], [4, 5, 6, 0, 0, 0]])  # S = 6
    tgt = torch.tensor([[2, 5, 6, 7], [2, 5, 0, 0]])  # T = 4: lengths differ
    y = _rand(B, 4, D, seed=4).requires_grad_()
    memory = _rand(B, 6, D, seed=5).requires_grad_()
    theirs = ref(
        y,
        memory,
        tgt_mask=~causal_mask(4),
        tgt_key_padding_mask=tgt == 0,
        memory_key_padding_mask=src == 0,
    )
    out = ours(
        y,
        memory,
        self_mask=causal_mask(4) & padding_mask(tgt, 0),
        cross_mask=padding_mask(src, 0),
    )
    torch.testing.assert_close(out.y, theirs, rtol=1e-10, atol=1e-12)
    assert out.self_weights.shape == (B, H, 4, 4)
    assert out.cross_weights.shape == (B, H, 4, 6)
    g = _rand(B, 4, D, seed=6)
    ga = torch.autograd.grad(out.y, (y, memory), g)
    gb = torch.autograd.grad(theirs, (y, memory), g)
    for a, b in zip(ga, gb, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-11)


def test_fast_layers_equal_teaching_layers():
    torch.manual_seed(4)
    enc = EncoderLayer(D, H, F_, dropout=0.0).double()
    x = _rand(B, 5, D, seed=7)
    a, _ = enc(x, causal_mask(5), fast=False)
    b, w = enc(x, causal_mask(5), fast=True)
    torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-12)
    assert w is None


def test_bad_layer_sizes():
    with pytest.raises(ValueError, match="divisible"):
        EncoderLayer(10, 4, 16)
    with pytest.raises(ValueError, match="d_ff"):
        DecoderLayer(8, 2, 0)
    with pytest.raises(ValueError, match="dropout"):
        EncoderLayer(8, 2, 16, dropout=1.5)
