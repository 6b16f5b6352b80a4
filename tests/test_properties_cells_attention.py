"""The recurrent nets and attention against torch on shapes drawn by Hypothesis.

- ``RecurrentNet`` (RNN, LSTM, GRU; 1-3 layers; one or two directions; padded batches with
  their lengths, or none) against ``nn.RNN/LSTM/GRU`` with copied weights, padded batches
  going through ``pack_padded_sequence`` as torch takes them: outputs (zero at padding),
  final states, and the gradients of the input, float64.
- ``scaled_dot_product_attention`` against ``F.scaled_dot_product_attention`` for any batch
  dimensions, lengths, widths and bool masks of any broadcastable shape, rows where nothing
  may be attended to included (torch gives 0 there; ours gave NaN before this test), values
  and gradients.
- ``MultiHeadAttention`` (self and cross) against ``nn.MultiheadAttention`` with copied
  weights, with key-padding masks (torch's mask is True where *not* allowed).
"""

import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
from transformer_parity import copy_attention

from course_lib.rnn.stacked import RecurrentNet, load_torch_weights
from course_lib.transformer import MultiHeadAttention
from course_lib.transformer.attention import scaled_dot_product_attention

TORCH = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}
F64 = torch.float64


def _gen(seed):
    return torch.Generator().manual_seed(seed)


@settings(max_examples=60)
@given(
    st.sampled_from(sorted(TORCH)),
    st.integers(1, 4),
    st.integers(1, 6),
    st.integers(1, 5),
    st.integers(1, 5),
    st.integers(1, 3),
    st.booleans(),
    st.booleans(),
    st.integers(0, 2**16),
    st.data(),
)
def test_recurrent_nets_match_torch(kind, B, T, D, H, layers, bi, padded, seed, data):
    torch.manual_seed(seed)
    ref = TORCH[kind](
        D, H, num_layers=layers, bidirectional=bi, batch_first=True, dtype=F64
    )
    ours = load_torch_weights(
        RecurrentNet(kind, D, H, num_layers=layers, bidirectional=bi, dtype=F64), ref
    )
    x = torch.randn(B, T, D, generator=_gen(seed), dtype=F64)  # (B, T, D)
    lengths = torch.tensor(
        data.draw(st.lists(st.integers(1, T), min_size=B, max_size=B))
    )
    x = x * (torch.arange(T) < lengths[:, None])[..., None] if padded else x
    x_ref, x_ours = x.clone().requires_grad_(), x.clone().requires_grad_()
    if padded:
        packed = pack_padded_sequence(
            x_ref, lengths, batch_first=True, enforce_sorted=False
        )
        out_ref, s_ref = ref(packed)
        out_ref = pad_packed_sequence(out_ref, batch_first=True, total_length=T)[0]
        out, s = ours(x_ours, lengths=lengths)
    else:
        (out_ref, s_ref), (out, s) = ref(x_ref), ours(x_ours)
    torch.testing.assert_close(out, out_ref)
    for a, b in zip(
        s if isinstance(s, tuple) else (s,),
        s_ref if isinstance(s_ref, tuple) else (s_ref,),
        strict=True,
    ):
        torch.testing.assert_close(a, b)
    w = torch.randn(out.shape, generator=_gen(seed + 1), dtype=F64)
    (out * w).sum().backward()
    (out_ref * w).sum().backward()
    torch.testing.assert_close(x_ours.grad, x_ref.grad)


@st.composite
def attention_inputs(draw):
    batch = draw(st.lists(st.integers(1, 3), max_size=2))
    Tq, Tk, dk, dv = (draw(st.integers(1, 5)) for _ in range(4))
    seed = draw(st.integers(0, 2**16))
    g = _gen(seed)
    q, k, v = (
        torch.randn(*batch, T, d, generator=g, dtype=F64)
        for T, d in ((Tq, dk), (Tk, dk), (Tk, dv))
    )
    mask = None
    if draw(st.booleans()):  # any broadcastable shape: each dimension kept or 1
        full = [*batch, Tq, Tk]
        shape = [n if draw(st.booleans()) else 1 for n in full]
        shape = shape[draw(st.integers(0, len(batch))) :]  # leading dimensions dropped
        mask = torch.rand(shape, generator=g) < draw(st.floats(0.2, 1.0))
    return q, k, v, mask


@settings(max_examples=200)
@given(attention_inputs())
def test_scaled_dot_product_attention_matches_torch(inputs):
    q, k, v, mask = inputs
    ours_in = [t.clone().requires_grad_() for t in (q, k, v)]
    ref_in = [t.clone().requires_grad_() for t in (q, k, v)]
    out, weights = scaled_dot_product_attention(*ours_in, mask)
    ref = F.scaled_dot_product_attention(*ref_in, attn_mask=mask)
    torch.testing.assert_close(out, ref)
    row_sums = weights.sum(-1)  # 1, or 0 where the mask allows nothing
    allowed = (
        torch.ones_like(row_sums) if mask is None else mask.any(-1).expand_as(row_sums)
    )
    torch.testing.assert_close(row_sums, allowed.to(row_sums))
    out.sum().backward()
    ref.sum().backward()
    for a, b in zip(ours_in, ref_in, strict=True):
        torch.testing.assert_close(a.grad, b.grad)


@settings(max_examples=60)
@given(
    st.integers(1, 3),
    st.integers(1, 5),
    st.integers(1, 5),
    st.integers(1, 3),
    st.integers(1, 4),
    st.booleans(),
    st.booleans(),
    st.integers(0, 2**16),
    st.data(),
)
def test_multi_head_attention_matches_torch(B, Tq, Tk, H, dk, cross, fast, seed, data):
    D = H * dk
    Tk = Tk if cross else Tq
    torch.manual_seed(seed)
    ref = nn.MultiheadAttention(D, H, batch_first=True, dtype=F64)
    ours = MultiHeadAttention(D, H, cross=cross).to(F64)
    copy_attention(ours, ref)
    g = _gen(seed)
    x = torch.randn(B, Tq, D, generator=g, dtype=F64)
    c = torch.randn(B, Tk, D, generator=g, dtype=F64) if cross else x
    lengths = torch.tensor(
        data.draw(st.lists(st.integers(1, Tk), min_size=B, max_size=B))
    )
    keep = torch.arange(Tk) < lengths[:, None]  # (B, T_k) True = a real key
    out_ref, _ = ref(x, c, c, key_padding_mask=~keep)
    out, _, _ = ours(x, c if cross else None, mask=keep[:, None, None, :], fast=fast)
    torch.testing.assert_close(out, out_ref)
