"""Encoder and decoder layers vs nn.TransformerEncoderLayer / DecoderLayer (Chapter 8)."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from transformer_parity import copy_attention, rand

from course_lib.transformer import (
    DecoderLayer,
    EncoderLayer,
    causal_mask,
    padding_mask,
)

D, H, F_, B = 12, 3, 20, 2


def _randomise_norms(module):
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)


def _layer_pair(ours_cls, ref_cls, norm_first, seed):
    """torch's layer (LayerNorms randomised too) and ours with its weights, float64."""
    torch.manual_seed(seed)
    ref = ref_cls(
        D,
        H,
        F_,
        dropout=0.0,
        batch_first=True,
        norm_first=norm_first,
        dtype=torch.float64,
    )
    _randomise_norms(ref)
    ours = ours_cls(D, H, F_, dropout=0.0, norm_first=norm_first).double()
    copy_attention(ours.self_attn, ref.self_attn)
    if ours.cross:
        copy_attention(ours.cross_attn, ref.multihead_attn)
    ours.ffn.linear1.load_state_dict(ref.linear1.state_dict())
    ours.ffn.linear2.load_state_dict(ref.linear2.state_dict())
    for name, module in ref.named_children():
        if isinstance(module, nn.LayerNorm):
            getattr(ours, name).load_state_dict(module.state_dict())
    return ref, ours


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_matches_torch(norm_first):
    ref, ours = _layer_pair(EncoderLayer, nn.TransformerEncoderLayer, norm_first, 0)
    tokens = torch.tensor([[4, 5, 6, 7, 8], [4, 5, 6, 0, 0]])
    x = rand(B, 5, D, seed=1).requires_grad_()
    theirs = ref(x, src_key_padding_mask=tokens == 0)
    out, w = ours(x, padding_mask(tokens, 0))
    torch.testing.assert_close(out, theirs, rtol=1e-10, atol=1e-12)
    assert w.shape == (B, H, 5, 5)
    g = rand(B, 5, D, seed=2)
    torch.testing.assert_close(
        torch.autograd.grad(out, x, g)[0],
        torch.autograd.grad(theirs, x, g)[0],
        rtol=1e-9,
        atol=1e-11,
    )


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_matches_torch(norm_first):
    ref, ours = _layer_pair(DecoderLayer, nn.TransformerDecoderLayer, norm_first, 3)
    src = torch.tensor([[4, 5, 6, 7, 8, 9], [4, 5, 6, 0, 0, 0]])  # S = 6
    tgt = torch.tensor([[2, 5, 6, 7], [2, 5, 0, 0]])  # T = 4: lengths differ
    y = rand(B, 4, D, seed=4).requires_grad_()
    memory = rand(B, 6, D, seed=5).requires_grad_()
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
    g = rand(B, 4, D, seed=6)
    ga = torch.autograd.grad(out.y, (y, memory), g)
    gb = torch.autograd.grad(theirs, (y, memory), g)
    for a, b in zip(ga, gb, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-11)


def test_fast_layers_equal_teaching_layers():
    torch.manual_seed(4)
    enc = EncoderLayer(D, H, F_, dropout=0.0).double()
    x = rand(B, 5, D, seed=7)
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
