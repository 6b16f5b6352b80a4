"""The from-scratch RNN cell and runner against torch.nn.RNN (copied weights, float64)."""

import pytest
import torch
from torch import nn

from course_lib.rnn.cell import torch_parameters
from course_lib.rnn.rnn_cell import RNN, RNNCell, copy_from_torch


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
def test_forward_and_gradients_match_torch(nonlinearity):
    torch.manual_seed(0)
    B, T, D, H = 3, 6, 4, 5
    theirs = nn.RNN(D, H, nonlinearity=nonlinearity, batch_first=True).double()
    ours = copy_from_torch(RNN(D, H, nonlinearity, dtype=torch.float64), theirs)
    x = torch.randn(B, T, D, dtype=torch.float64)
    h0 = torch.randn(B, H, dtype=torch.float64)
    x1, x2 = x.clone().requires_grad_(), x.clone().requires_grad_()
    hs_t, hT_t = theirs(x1, h0.unsqueeze(0))
    hs_o, hT_o = ours(x2, h0)
    torch.testing.assert_close(hs_o, hs_t, rtol=0, atol=1e-12)
    torch.testing.assert_close(hT_o, hT_t[0], rtol=0, atol=1e-12)
    w = torch.randn(B, T, H, dtype=torch.float64)
    (hs_t * w).sum().backward()
    (hs_o * w).sum().backward()
    torch.testing.assert_close(x2.grad, x1.grad, rtol=0, atol=1e-12)
    cell = ours.cell
    torch.testing.assert_close(
        cell.W_xh.grad, theirs.weight_ih_l0.grad.T, rtol=0, atol=1e-12
    )
    torch.testing.assert_close(
        cell.W_hh.grad, theirs.weight_hh_l0.grad.T, rtol=0, atol=1e-12
    )
    torch.testing.assert_close(
        cell.b_h.grad, theirs.bias_ih_l0.grad, rtol=0, atol=1e-12
    )
    torch.testing.assert_close(
        cell.b_h.grad, theirs.bias_hh_l0.grad, rtol=0, atol=1e-12
    )


def test_zero_initial_state_and_shapes():
    torch.manual_seed(1)
    theirs = nn.RNN(2, 3, batch_first=True).double()
    ours = copy_from_torch(RNN(2, 3, dtype=torch.float64), theirs)
    x = torch.randn(4, 7, 2, dtype=torch.float64)
    hs, h = ours(x)
    assert hs.shape == (4, 7, 3) and h.shape == (4, 3)
    torch.testing.assert_close(hs, theirs(x)[0], rtol=0, atol=1e-12)
    torch.testing.assert_close(hs[:, -1], h)


def test_parameters_are_shared_across_time():
    rnn = RNN(2, 3)
    assert sum(p.numel() for p in rnn.parameters()) == 2 * 3 + 3 * 3 + 3
    cell = RNNCell(2, 3)
    x, h = torch.randn(1, 2), torch.zeros(1, 3)
    h1, (state,) = cell(x, (h,))
    torch.testing.assert_close(h1, torch.tanh(x @ cell.W_xh + cell.b_h))
    assert state is h1


def test_cell_without_bias_matches_torch_step():
    torch.manual_seed(2)
    theirs = nn.RNN(3, 4, bias=False, dtype=torch.float64)
    cell = RNNCell(3, 4, bias=False, dtype=torch.float64)
    assert cell.b_h is None and len(list(cell.parameters())) == 2
    cell.load_torch_parameters(torch_parameters(theirs))
    x, h = (
        torch.randn(2, 3, dtype=torch.float64),
        torch.randn(2, 4, dtype=torch.float64),
    )
    want = theirs(x[None], h[None])[0][0]  # one step, (B, H)
    torch.testing.assert_close(cell(x, (h,))[0], want, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="biases"):
        cell.load_torch_parameters(torch_parameters(nn.RNN(3, 4)))


def test_bad_inputs():
    with pytest.raises(ValueError, match="nonlinearity"):
        RNNCell(2, 3, "sigmoid")
    with pytest.raises(ValueError, match="hidden_size"):
        RNNCell(2, 0)
    with pytest.raises(TypeError, match="ints"):
        RNNCell(2.0, 3)
    with pytest.raises(TypeError, match=r"state tuple of 1"):
        RNNCell(2, 3)(torch.zeros(4, 2), torch.zeros(4, 3))
    rnn = RNN(2, 3)
    with pytest.raises(ValueError, match=r"x must be \(B, T, D=2\)"):
        rnn(torch.zeros(4, 2))
    with pytest.raises(ValueError, match="h0 must be"):
        rnn(torch.zeros(4, 5, 2), torch.zeros(1, 4, 3))
    with pytest.raises(ValueError, match="sizes/nonlinearity differ"):
        copy_from_torch(rnn, nn.RNN(2, 3, nonlinearity="relu"))
    with pytest.raises(ValueError, match="one-layer"):
        copy_from_torch(rnn, nn.RNN(2, 3, num_layers=2))
    with pytest.raises(TypeError, match="torch.nn.RNN"):
        copy_from_torch(rnn, nn.GRU(2, 3))
