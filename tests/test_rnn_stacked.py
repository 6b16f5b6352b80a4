"""RecurrentNet (course_lib.rnn.stacked): deep and bidirectional wrappers against torch's
modules with copied weights (float64, forward and gradients), padding against packed
sequences, padded vs unpadded batches, bad input."""

from __future__ import annotations

import pytest
import torch
from rnn_parity import TOL, TORCH, flat
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from course_lib.rnn.rnn_cell import RNNCell
from course_lib.rnn.stacked import (
    RecurrentNet,
    load_torch_weights,
    reverse_padded,
)


def _pair(kind, D, H, layers, bi, seed=0):
    torch.manual_seed(seed)
    ref = TORCH[kind](
        D, H, num_layers=layers, bidirectional=bi, batch_first=True, dtype=torch.float64
    )
    net = RecurrentNet(
        kind, D, H, num_layers=layers, bidirectional=bi, dtype=torch.float64
    )
    return ref, load_torch_weights(net, ref)


def _torch_layout_grad(cell, name):
    """The gradient of ``cell``'s parameter that torch calls ``name`` (weight_ih, ...):
    RNNCell keeps the lecture's W_xh = W_ihᵀ, W_hh = W_hhᵀ and b_h = b_ih + b_hh."""
    if isinstance(cell, RNNCell):
        return {
            "weight_ih": lambda: cell.W_xh.grad.T,
            "weight_hh": lambda: cell.W_hh.grad.T,
            "bias_ih": lambda: cell.b_h.grad,
            "bias_hh": lambda: cell.b_h.grad,
        }[name]()
    return getattr(cell, name).grad


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
@pytest.mark.parametrize(
    ("layers", "bi", "D", "H"), [(1, True, 3, 4), (3, False, 5, 2), (2, True, 4, 3)]
)
def test_deep_bidirectional_match_torch(kind, layers, bi, D, H):
    ref, net = _pair(kind, D, H, layers, bi, seed=layers)
    x = torch.randn(3, 6, D, dtype=torch.float64)
    xs = [x.clone().requires_grad_() for _ in range(2)]
    out_ref, s_ref = ref(xs[0])
    out, s = net(xs[1])
    assert out.shape == (3, 6, (2 if bi else 1) * H)
    torch.testing.assert_close(out, out_ref, **TOL)
    for a, b in zip(flat(s), flat(s_ref)):
        torch.testing.assert_close(a, b, **TOL)
    w = torch.randn_like(out)
    ((out_ref * w).sum() + flat(s_ref)[0].sum()).backward()
    ((out * w).sum() + flat(s)[0].sum()).backward()
    torch.testing.assert_close(xs[1].grad, xs[0].grad, **TOL)
    for name, p in ref.named_parameters():
        layer, rev = int(name.split("_l")[1][0]), name.endswith("_reverse")
        cell = net.cells[layer * net.num_directions + rev]
        torch.testing.assert_close(
            _torch_layout_grad(cell, name.split("_l")[0]), p.grad, **TOL
        )


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
def test_padding_matches_packed_sequences(kind):
    ref, net = _pair(kind, 4, 3, 2, True, seed=7)
    lengths = torch.tensor([5, 2, 7, 1])
    x = torch.randn(4, 7, 4, dtype=torch.float64)
    packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
    out_ref, s_ref = ref(packed)
    out_ref, _ = pad_packed_sequence(out_ref, batch_first=True, total_length=7)
    out, s = net(x, lengths)
    torch.testing.assert_close(out, out_ref, **TOL)
    for a, b in zip(flat(s), flat(s_ref)):
        torch.testing.assert_close(a, b, **TOL)


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru", "simple_gru"])
def test_padded_and_unpadded_batches_agree_on_real_tokens(kind):
    torch.manual_seed(4)
    net = RecurrentNet(
        kind, 3, 5, num_layers=2, bidirectional=True, dtype=torch.float64
    )
    seqs = [torch.randn(n, 3, dtype=torch.float64) for n in (4, 1, 6)]
    x = torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=9.0)
    out, _ = net(x, torch.tensor([4, 1, 6]))
    for b, s in enumerate(seqs):
        alone, _ = net(s[None])
        torch.testing.assert_close(out[b, : len(s)], alone[0], **TOL)
        assert (out[b, len(s) :] == 0).all()


def test_reverse_padded_is_an_involution():
    x = torch.arange(12.0).view(2, 6)
    lengths = torch.tensor([4, 6])
    r = reverse_padded(x, lengths)
    assert r[0].tolist() == [3, 2, 1, 0, 4, 5] and r[1].tolist() == [11, 10, 9, 8, 7, 6]
    assert torch.equal(reverse_padded(r, lengths), x)


def test_bad_input():
    net = RecurrentNet("lstm", 3, 2, num_layers=2)
    x = torch.randn(2, 4, 3)
    with pytest.raises(ValueError, match="length 0"):
        net(torch.randn(2, 0, 3))
    with pytest.raises(ValueError, match=r"lengths must lie in 1..T"):
        net(x, torch.tensor([0, 4]))
    with pytest.raises(ValueError, match=r"lengths must have shape \(B,\)"):
        net(x, torch.tensor([1, 2, 3]))
    with pytest.raises(ValueError, match=r"\(L·K, B, H\) = \(2, 2, 2\)"):
        net(x, state=(torch.zeros(1, 2, 2), torch.zeros(1, 2, 2)))
    with pytest.raises(ValueError, match="2 tensor"):
        net(x, state=torch.zeros(2, 2, 2))
    with pytest.raises(ValueError, match="D = 3"):
        net(torch.randn(2, 4, 5))
    with pytest.raises(ValueError, match="batch first"):
        net(torch.randn(4, 3))
    with pytest.raises(ValueError, match="cell must be one of"):
        RecurrentNet("transformer", 3, 2)
    with pytest.raises(TypeError, match="cannot copy a GRU"):
        load_torch_weights(net, torch.nn.GRU(3, 2, num_layers=2, batch_first=True))
    with pytest.raises(ValueError, match="sizes differ"):
        load_torch_weights(net, torch.nn.LSTM(3, 2, batch_first=True))
    with pytest.raises(ValueError, match="must be >= 1"):
        RNNCell(3, 0)
