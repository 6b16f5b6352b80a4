"""LSTMCell (course_lib.rnn.lstm): parity with torch.nn.LSTM (forward and gradients, float64),
the gate equations, the notes' per-gate row-vector weights, the forget = 1 / input = 0
extreme, bad input."""

from __future__ import annotations

import pytest
import torch
from rnn_parity import SIZES, TOL, assert_cell_matches_torch

from course_lib.rnn.lstm import LECTURE_GATES, LSTMCell, lecture_weights
from course_lib.rnn.stacked import RecurrentNet, load_torch_weights, run_direction


@pytest.mark.parametrize(("B", "T", "D", "H"), SIZES)
def test_lstm_cell_matches_torch_lstm_forward_and_gradients(B, T, D, H):
    assert_cell_matches_torch("lstm", B, T, D, H, seed=B * 100 + T)


def test_lstm_cell_matches_torch_lstmcell_one_step():
    torch.manual_seed(0)
    ref = torch.nn.LSTMCell(5, 4, dtype=torch.float64)
    cell = LSTMCell(5, 4, dtype=torch.float64)
    cell.load_state_dict(ref.state_dict())
    x = torch.randn(3, 5, dtype=torch.float64)
    h, c = (
        torch.randn(3, 4, dtype=torch.float64),
        torch.randn(3, 4, dtype=torch.float64),
    )
    h_ref, c_ref = ref(x, (h, c))
    out, (h1, c1) = cell(x, (h, c))
    torch.testing.assert_close(out, h_ref, **TOL)
    torch.testing.assert_close(c1, c_ref, **TOL)


def test_lstm_gates_follow_the_lecture_equations():
    torch.manual_seed(1)
    cell = LSTMCell(3, 2, dtype=torch.float64)
    x, state = torch.randn(4, 3, dtype=torch.float64), cell.init_state(4)
    g = cell.gates(x, state)
    for name in ("input", "forget", "output"):
        assert ((g[name] > 0) & (g[name] < 1)).all()
    h, (h1, c1) = cell(x, state)
    torch.testing.assert_close(c1, g["forget"] * state[1] + g["input"] * g["candidate"])
    torch.testing.assert_close(h, g["output"] * torch.tanh(c1))


def test_forget_one_input_zero_copies_the_cell_and_its_gradient():
    """F = 1, I = 0: C_t = C_{t−1} for every t, so ∂C_T/∂C_0 = I (the extreme of lecture 6)."""
    H, T = 3, 50
    cell = LSTMCell(2, H, dtype=torch.float64)
    with torch.no_grad():
        cell.bias_ih.zero_()
        cell.bias_hh.zero_()
        cell.weight_ih.zero_()
        cell.weight_hh.zero_()
        cell.bias_ih[H : 2 * H] = 40.0  # forget gate ≈ 1
        cell.bias_ih[:H] = -40.0  # input gate ≈ 0
    c0 = torch.randn(1, H, dtype=torch.float64, requires_grad=True)
    x = torch.randn(1, T, 2, dtype=torch.float64)
    _, (h, c) = run_direction(cell, x, (torch.zeros(1, H, dtype=torch.float64), c0))
    torch.testing.assert_close(c, c0.detach())
    jac = torch.autograd.functional.jacobian(
        lambda c_: run_direction(cell, x, (torch.zeros(1, H, dtype=torch.float64), c_))[
            1
        ][1],
        c0.detach(),
    ).reshape(H, H)
    torch.testing.assert_close(jac, torch.eye(H, dtype=torch.float64))


def test_lstm_bad_input():
    cell = LSTMCell(3, 2)
    x = torch.randn(4, 3)
    with pytest.raises(ValueError, match=r"x must have shape \(B, 3\)"):
        cell(torch.randn(4, 5), cell.init_state(4))
    with pytest.raises(TypeError, match="state tuple of 2"):
        cell(x, cell.init_state(4)[0])
    with pytest.raises(
        ValueError, match=r"state tensors must have shape \(B, H\) = \(4, 2\)"
    ):
        cell(x, (torch.zeros(4, 3), torch.zeros(4, 3)))
    with pytest.raises(ValueError, match="must be >= 1"):
        LSTMCell(0, 2)


def test_lecture_weights_have_the_notes_shapes_and_give_torch_gates():
    """X W_x· + H W_h· + b_· with the cut-out blocks reproduces the gates of our cell and
    the step of torch.nn.LSTM (both layers of a deep one)."""
    torch.manual_seed(2)
    D, H, n = 5, 3, 4
    ref = torch.nn.LSTM(D, H, num_layers=2, batch_first=True, dtype=torch.float64)
    net = RecurrentNet("lstm", D, H, num_layers=2, dtype=torch.float64)
    net = load_torch_weights(net, ref)
    x = torch.randn(n, D, dtype=torch.float64)
    h, c = (
        torch.randn(n, H, dtype=torch.float64),
        torch.randn(n, H, dtype=torch.float64),
    )
    ours, theirs = lecture_weights(net.cells[0]), lecture_weights(ref)
    assert list(ours) == ["f", "i", "o", "c"] == list(LECTURE_GATES)
    for gate in ours:
        assert ours[gate]["W_x"].shape == (D, H)
        assert ours[gate]["W_h"].shape == (H, H)
        assert ours[gate]["b"].shape == (1, H)
        for name in ("W_x", "W_h", "b"):
            torch.testing.assert_close(ours[gate][name], theirs[gate][name], **TOL)
    z = {g: x @ w["W_x"] + h @ w["W_h"] + w["b"] for g, w in ours.items()}  # (n, H)
    gates = net.cells[0].gates(x, (h, c))
    torch.testing.assert_close(torch.sigmoid(z["f"]), gates["forget"], **TOL)
    torch.testing.assert_close(torch.sigmoid(z["i"]), gates["input"], **TOL)
    torch.testing.assert_close(torch.sigmoid(z["o"]), gates["output"], **TOL)
    torch.testing.assert_close(torch.tanh(z["c"]), gates["candidate"], **TOL)
    c1 = torch.sigmoid(z["f"]) * c + torch.sigmoid(z["i"]) * torch.tanh(z["c"])
    h1 = torch.sigmoid(z["o"]) * torch.tanh(c1)
    _, (h_ref, c_ref) = ref(
        x[:, None], (h[None].repeat(2, 1, 1), c[None].repeat(2, 1, 1))
    )
    torch.testing.assert_close(h1, h_ref[0], **TOL)
    torch.testing.assert_close(c1, c_ref[0], **TOL)
    top = lecture_weights(ref, layer=1)
    torch.testing.assert_close(top["c"]["W_x"], ref.weight_ih_l1[2 * H : 3 * H].T)


def test_lecture_weights_bad_input():
    with pytest.raises(TypeError, match="LSTMCell or a torch.nn.LSTM"):
        lecture_weights(torch.nn.GRU(3, 2))
    with pytest.raises(ValueError, match="layer must be in 0..0"):
        lecture_weights(torch.nn.LSTM(3, 2), layer=1)
    with pytest.raises(ValueError, match="proj_size"):
        lecture_weights(torch.nn.LSTM(3, 4, proj_size=2))
    zero = lecture_weights(LSTMCell(3, 2, bias=False))
    assert (zero["f"]["b"] == 0).all() and zero["f"]["b"].shape == (1, 2)
