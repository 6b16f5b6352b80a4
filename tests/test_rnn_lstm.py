"""LSTMCell (course_lib.rnn.lstm): parity with torch.nn.LSTM (forward and gradients, float64),
the gate equations, the forget = 1 / input = 0 extreme, bad input."""

from __future__ import annotations

import pytest
import torch
from rnn_parity import SIZES, TOL, assert_cell_matches_torch

from course_lib.rnn.lstm import LSTMCell
from course_lib.rnn.stacked import run_direction


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
