"""DeepRNN (course_lib.rnn.deep): stacked recurrent layers and a per-step feed-forward head,
against torch.nn.LSTM/GRU + torch.nn.Sequential with copied weights (float64, forward and
gradients), fused against unfused, padding, per-step independence of the head, bad input."""

from __future__ import annotations

import pytest
import torch
from rnn_parity import TOL, TORCH

from course_lib.rnn.deep import DeepRNN
from course_lib.rnn.stacked import load_torch_weights

F64 = torch.float64


def _reference(net: DeepRNN, kind: str, D: int, H: int, layers: int, bi: bool):
    """The same function built from torch's own modules, with net's weights."""
    rnn = TORCH[kind](
        D, H, num_layers=layers, bidirectional=bi, batch_first=True, dtype=F64
    )
    load_torch_weights(net.recurrent, rnn)  # copies torch's weights into ours
    head = torch.nn.Sequential(*[m for m in net.head], net.out)
    ref_head = torch.nn.Sequential(
        *[
            type(m)(m.in_features, m.out_features, dtype=F64)
            if isinstance(m, torch.nn.Linear)
            else torch.nn.Tanh()
            for m in head
        ]
    )
    ref_head.load_state_dict(head.state_dict())
    return lambda x: ref_head(rnn(x)[0]), list(rnn.parameters())


@pytest.mark.parametrize("kind", ["lstm", "gru"])
@pytest.mark.parametrize(
    ("layers", "head_layers", "bi"), [(2, 1, False), (3, 2, True), (1, 0, False)]
)
def test_deep_rnn_matches_torch_modules(kind, layers, head_layers, bi):
    torch.manual_seed(0)
    D, H, O = 4, 5, 3
    net = DeepRNN(
        kind,
        D,
        H,
        O,
        num_layers=layers,
        head_layers=head_layers,
        head_width=6,
        bidirectional=bi,
        dtype=F64,
    )
    ref, ref_rnn_params = _reference(net, kind, D, H, layers, bi)
    x = torch.randn(2, 7, D, dtype=F64)
    x_ours, x_ref = x.clone().requires_grad_(), x.clone().requires_grad_()
    y, y_ref = net(x_ours), ref(x_ref)
    assert y.shape == (2, 7, O)
    torch.testing.assert_close(y, y_ref, **TOL)
    w = torch.randn_like(y)
    (y * w).sum().backward()
    (y_ref * w).sum().backward()
    torch.testing.assert_close(x_ours.grad, x_ref.grad, **TOL)
    ours = net.recurrent.cells[0].weight_hh.grad
    torch.testing.assert_close(ours, ref_rnn_params[1].grad, **TOL)


def test_fused_equals_unfused_and_padding_matches():
    torch.manual_seed(1)
    kw = dict(num_layers=2, head_layers=1, bidirectional=True, dtype=F64)
    fused = DeepRNN("lstm", 3, 4, 2, fused=True, **kw)
    ours = DeepRNN("lstm", 3, 4, 2, **kw)
    load_torch_weights(ours.recurrent, fused.recurrent)
    ours.head.load_state_dict(fused.head.state_dict())
    ours.out.load_state_dict(fused.out.state_dict())
    x, lengths = torch.randn(3, 6, 3, dtype=F64), torch.tensor([6, 2, 4])
    torch.testing.assert_close(ours(x), fused(x), **TOL)
    padded_ours, padded_fused = ours(x, lengths), fused(x, lengths)
    torch.testing.assert_close(padded_ours, padded_fused, **TOL)
    for b, n in enumerate(lengths.tolist()):  # real steps as if run alone
        alone = fused(x[b : b + 1, :n])
        torch.testing.assert_close(padded_fused[b : b + 1, :n], alone, **TOL)


def test_head_is_not_connected_across_time():
    """Changing the top state at one step changes ŷ at that step only."""
    torch.manual_seed(2)
    net = DeepRNN("gru", 3, 4, 2, head_layers=2, dtype=F64)
    a = torch.randn(1, 5, 4, dtype=F64, requires_grad=True)
    y = net.out(net.head(a))  # (1, 5, 2)
    (g,) = torch.autograd.grad(y[0, 2].sum(), a)
    assert (g[0, 2] != 0).all() and (g[0, [0, 1, 3, 4]] == 0).all()
    assert len(net.head) == 4  # two (Linear, Tanh) pairs


def test_deep_rnn_bad_input():
    with pytest.raises(ValueError, match="fused cell must be one of"):
        DeepRNN("simple_gru", 3, 4, 2, fused=True)
    with pytest.raises(ValueError, match="head_layers must be an int >= 0"):
        DeepRNN("lstm", 3, 4, 2, head_layers=-1)
    with pytest.raises(ValueError, match="output_size"):
        DeepRNN("lstm", 3, 4, 0)
    with pytest.raises(ValueError, match="head_width"):
        DeepRNN("lstm", 3, 4, 2, head_width=0)
    with pytest.raises(ValueError, match=r"\(B, T, D\)"):
        DeepRNN("lstm", 3, 4, 2, fused=True)(torch.randn(2, 3))
    with pytest.raises(ValueError, match="D = 3"):
        DeepRNN("lstm", 3, 4, 2)(torch.randn(2, 5, 4))
