"""Scaled dot-product and multi-head attention vs PyTorch's, with copied weights (Chapter 8)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from transformer_parity import copy_attention, rand

from course_lib.transformer import (
    MultiHeadAttention,
    causal_mask,
    heads_loop,
    padding_mask,
    scaled_dot_product_attention,
)

D, H, B = 12, 3, 2


def _pad_mask():
    tokens = torch.tensor([[5, 6, 7, 8, 9], [5, 6, 7, 0, 0]])
    return tokens, padding_mask(tokens, 0)  # (B, 1, 1, 5)


@pytest.mark.parametrize("kind", ["none", "padding", "causal", "both"])
def test_sdpa_matches_torch_values_and_gradients(kind):
    q = rand(B, H, 5, 4, seed=1).requires_grad_()
    k = rand(B, H, 5, 4, seed=2).requires_grad_()
    v = rand(B, H, 5, 6, seed=3).requires_grad_()
    _, pad = _pad_mask()
    mask = {
        "none": None,
        "padding": pad,
        "causal": causal_mask(5),
        "both": pad & causal_mask(5),
    }[kind]
    ours, w = scaled_dot_product_attention(q, k, v, mask)
    theirs = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    torch.testing.assert_close(ours, theirs, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(w.sum(-1), torch.ones(B, H, 5, dtype=torch.float64))
    g = rand(*ours.shape, seed=4)
    ga = torch.autograd.grad(ours, (q, k, v), g)
    gb = torch.autograd.grad(theirs, (q, k, v), g)
    for a, b in zip(ga, gb, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-11)
    if mask is not None:
        assert (w.masked_select(~mask.expand_as(w)) == 0).all()


@pytest.mark.parametrize("cross", [False, True])
@pytest.mark.parametrize("fast", [False, True])
def test_mha_matches_nn_multiheadattention(cross, fast):
    torch.manual_seed(0)
    ref = nn.MultiheadAttention(D, H, batch_first=True, dtype=torch.float64)
    ours = MultiHeadAttention(D, H, cross=cross).double()
    copy_attention(ours, ref)
    T_q, T_k = (4, 5) if cross else (5, 5)
    x = rand(B, T_q, D, seed=5).requires_grad_()
    ctx = rand(B, T_k, D, seed=6).requires_grad_() if cross else x
    tokens, pad = _pad_mask()
    key_padding = tokens == 0  # torch: True = ignore
    attn_mask = None if cross else ~causal_mask(T_q)  # torch: True = not allowed
    ref_out, ref_w = ref(
        x,
        ctx,
        ctx,
        key_padding_mask=key_padding,
        attn_mask=attn_mask,
        average_attn_weights=False,
    )
    mask = pad if cross else pad & causal_mask(T_q)
    out, w, (k, v) = ours(x, ctx if cross else None, mask=mask, fast=fast)
    torch.testing.assert_close(out, ref_out, rtol=1e-10, atol=1e-12)
    assert k.shape == v.shape == (B, H, T_k, D // H)
    if fast:
        assert w is None
    else:
        torch.testing.assert_close(w, ref_w, rtol=1e-10, atol=1e-12)
    g = rand(*out.shape, seed=7)
    inputs = (x, ctx) if cross else (x,)
    ga = torch.autograd.grad(out, inputs, g)
    gb = torch.autograd.grad(ref_out, inputs, g)
    for a, b in zip(ga, gb, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("cross", [False, True])
def test_batched_heads_equal_a_loop_over_heads(cross):
    torch.manual_seed(1)
    mha = MultiHeadAttention(D, H, cross=cross).double()
    x = rand(B, 5, D, seed=8)
    ctx = rand(B, 5, D, seed=9) if cross else None
    _, pad = _pad_mask()
    out, _, _ = mha(x, ctx, mask=pad)
    torch.testing.assert_close(
        out, heads_loop(mha, x, ctx, pad), rtol=1e-10, atol=1e-12
    )


def test_split_merge_heads_view_reshape_and_contiguity():
    mha = MultiHeadAttention(D, H)
    x = torch.randn(B, 5, D)
    heads = mha.split_heads(x)
    assert heads.shape == (B, H, 5, D // H)
    assert not heads.is_contiguous()  # the transpose only changed strides
    out = heads.contiguous()  # like weights @ v: a fresh (B, H, T, d_k) tensor
    with pytest.raises(RuntimeError, match="view"):
        out.transpose(1, 2).view(B, 5, D)
    torch.testing.assert_close(out.transpose(1, 2).reshape(B, 5, D), x)
    torch.testing.assert_close(mha.merge_heads(heads), x)


def test_fast_path_equals_teaching_path_in_float32():
    torch.manual_seed(2)
    mha = MultiHeadAttention(D, H)
    x = torch.randn(B, 5, D)
    mask = causal_mask(5)
    slow, _, _ = mha(x, mask=mask, fast=False)
    quick, _, _ = mha(x, mask=mask, fast=True)
    torch.testing.assert_close(slow, quick, rtol=1e-5, atol=1e-6)


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="divisible by n_heads"):
        MultiHeadAttention(10, 3)
    mha = MultiHeadAttention(D, H)
    x = torch.randn(B, 5, D)
    with pytest.raises(TypeError, match="torch.bool"):
        mha(x, mask=torch.ones(5, 5))
    with pytest.raises(TypeError, match="torch.bool"):
        scaled_dot_product_attention(x, x, x, torch.ones(5, 5, dtype=torch.long))
    with pytest.raises(ValueError, match=r"T_q=5, T_k=5"):
        mha(x, mask=torch.ones(4, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match="empty batch"):
        mha(torch.randn(0, 5, D))
    with pytest.raises(ValueError, match=r"\(B, T, 12\)"):
        mha(torch.randn(B, 5, 8))
    with pytest.raises(ValueError, match="same d_k"):
        scaled_dot_product_attention(x, torch.randn(B, 5, 4), x)
    with pytest.raises(ValueError, match="needs a context"):
        MultiHeadAttention(D, H, cross=True)(x)
    # the fused path checks its mask too (F.scaled_dot_product_attention would add it)
    with pytest.raises(TypeError, match="torch.bool"):
        mha(x, mask=torch.ones(5, 5), fast=True)
    with pytest.raises(ValueError, match=r"T_q=5, T_k=5"):
        mha(x, mask=torch.ones(4, 5, dtype=torch.bool), fast=True)


@pytest.mark.parametrize("cross", [False, True])
@pytest.mark.parametrize("fast", [False, True])
def test_head_mask_of_ones_changes_nothing_and_zero_removes_the_head_via_w_o(
    cross, fast
):
    torch.manual_seed(0)
    mha = MultiHeadAttention(D, H, cross=cross).double().eval()
    x = rand(B, 4, D, seed=7)
    ctx = rand(B, 5, D, seed=8) if cross else None
    _, pad = _pad_mask()
    mask = pad if cross else None
    full, _, _ = mha(x, ctx, mask=mask, fast=fast)  # (B, T_q, D)
    mha.head_mask = torch.ones(H, dtype=torch.float64)
    ones, _, _ = mha(x, ctx, mask=mask, fast=fast)
    assert torch.equal(ones, full)
    # head h's term of the output: its d_k columns of the concatenation times W_O's
    q, k, v = mha.project(x, ctx)  # (B, H, T, d_k)
    heads, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, T_q, d_k)
    d_k = D // H
    for h in range(H):
        mha.head_mask = torch.ones(H, dtype=torch.float64)
        mha.head_mask[h] = 0.0
        ablated, _, _ = mha(x, ctx, mask=mask, fast=fast)  # (B, T_q, D)
        W_o_h = mha.W_o.weight[:, h * d_k : (h + 1) * d_k]  # (D, d_k): W_O^h
        term = heads[:, h] @ W_o_h.T  # (B, T_q, D): head_h W_O^h
        torch.testing.assert_close(ablated, full - term, rtol=1e-10, atol=1e-12)
    mha.head_mask = torch.zeros(H, dtype=torch.float64)  # every head off: the bias
    none, _, _ = mha(x, ctx, mask=mask, fast=fast)
    torch.testing.assert_close(none, mha.W_o.bias.expand_as(none))


@pytest.mark.parametrize("cross", [False, True])
def test_the_general_path_computes_the_teaching_paths_numbers(cross):
    """forward writes attention out; forward_general (cache, fused kernel, head mask)
    must give the same tensors, bit for bit, when none of them is used."""
    torch.manual_seed(3)
    mha = MultiHeadAttention(D, H, cross=cross, dropout=0.2).double()
    x = rand(B, 5, D, seed=10)
    ctx = rand(B, 5, D, seed=11) if cross else None
    _, pad = _pad_mask()
    for training in (False, True):
        mha.train(training)
        torch.manual_seed(4)  # the same dropout draws
        taught = mha(x, ctx, mask=pad)
        torch.manual_seed(4)
        general = mha.forward_general(x, ctx, pad, None, False)
        for a, b in zip(taught[:2] + taught[2], general[:2] + general[2], strict=True):
            assert torch.equal(a, b)
    mha.eval()  # the cache: token 4 after three cached ones, as in the whole pass
    causal = None if cross else causal_mask(4)
    _, _, kv = mha(x[:, :3], ctx, mask=None if cross else causal_mask(3))
    step, _, _ = mha(x[:, 3:4], past_kv=kv)  # (B, 1, D)
    whole, _, _ = mha(x[:, :4], ctx, mask=causal)  # (B, 4, D)
    torch.testing.assert_close(step, whole[:, 3:], rtol=1e-10, atol=1e-12)
