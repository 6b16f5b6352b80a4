"""GRUCell and SimplifiedGRUCell (course_lib.rnn.gru): parity with torch.nn.GRU (forward and
gradients, float64), the lecture's reset-before form, the simplified GRU's equation."""

from __future__ import annotations

import pytest
import torch
from rnn_parity import SIZES, assert_cell_matches_torch

from course_lib.rnn.gru import GRUCell, SimplifiedGRUCell


@pytest.mark.parametrize(("B", "T", "D", "H"), SIZES)
def test_gru_matches_torch_gru_forward_and_gradients(B, T, D, H):
    assert_cell_matches_torch("gru", B, T, D, H, seed=B * 10 + H)


def test_gru_reset_before_is_the_lecture_form():
    torch.manual_seed(2)
    cell = GRUCell(3, 4, reset_after=False, dtype=torch.float64)
    x, h = (
        torch.randn(2, 3, dtype=torch.float64),
        torch.randn(2, 4, dtype=torch.float64),
    )
    W_in, W_hn = cell.weight_ih[8:], cell.weight_hh[8:]
    b = cell.bias_ih[8:] + cell.bias_hh[8:]
    g = cell.gates(x, (h,))
    want = torch.tanh(x @ W_in.T + (g["reset"] * h) @ W_hn.T + b)
    torch.testing.assert_close(g["candidate"], want)
    out, _ = cell(x, (h,))
    u = g["update"]
    torch.testing.assert_close(out, (1 - u) * h + u * g["candidate"])  # lecture's form
    assert not torch.allclose(out, GRUCell.forward(_after(cell), x, (h,))[0])


def _after(cell):
    other = GRUCell(cell.input_size, cell.hidden_size, dtype=torch.float64)
    other.load_state_dict(cell.state_dict())
    return other


def test_simplified_gru_equation_and_gradcheck():
    torch.manual_seed(3)
    cell = SimplifiedGRUCell(3, 4, dtype=torch.float64)
    assert cell.weight_ih.shape == (8, 3) and cell.weight_hh.shape == (8, 4)
    x, c = (
        torch.randn(2, 3, dtype=torch.float64),
        torch.randn(2, 4, dtype=torch.float64),
    )
    W = torch.cat(
        [cell.weight_hh, cell.weight_ih], dim=1
    )  # [W_u; W_c] acting on [c, x]
    b = cell.bias_ih + cell.bias_hh
    z = torch.cat([c, x], dim=1) @ W.T + b
    gamma, c_tilde = torch.sigmoid(z[:, :4]), torch.tanh(z[:, 4:])
    out, (c1,) = cell(x, (c,))
    torch.testing.assert_close(out, gamma * c_tilde + (1 - gamma) * c)
    assert torch.autograd.gradcheck(
        lambda x_, c_: cell(x_, (c_,))[0],
        (x.requires_grad_(), c.requires_grad_()),
    )


def test_simplified_gru_gate_closed_keeps_the_memory():
    cell = SimplifiedGRUCell(2, 3, dtype=torch.float64)
    with torch.no_grad():
        cell.bias_ih[:3] = -50.0  # Γ_u ≈ 0: c_t = c_{t−1}
    c = torch.randn(5, 3, dtype=torch.float64)
    for _ in range(20):
        _, (c_next,) = cell(torch.randn(5, 2, dtype=torch.float64), (c,))
        torch.testing.assert_close(c_next, c)


@pytest.mark.parametrize("cls", [GRUCell, SimplifiedGRUCell])
def test_gru_bad_input(cls):
    cell = cls(3, 2)
    with pytest.raises(ValueError, match=r"x must have shape \(B, 3\)"):
        cell(torch.randn(4, 2), cell.init_state(4))
    with pytest.raises(ValueError, match=r"\(B, H\) = \(4, 2\)"):
        cell(torch.randn(4, 3), (torch.zeros(5, 2),))
    with pytest.raises(TypeError, match="state tuple of 1"):
        cell(torch.randn(4, 3), torch.zeros(4, 2))
