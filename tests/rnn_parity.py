"""The parity check the recurrent-cell tests share: a one-layer ``RecurrentNet`` of our cell
against ``torch.nn.RNN/LSTM/GRU`` with copied weights (float64): outputs, final states, and
the gradients of the inputs and of every parameter. Used by tests/test_rnn_*.py."""

from __future__ import annotations

import torch

from course_lib.rnn.cell import TORCH_PARAMETERS
from course_lib.rnn.stacked import RecurrentNet, load_torch_weights

TOL = {"rtol": 1e-8, "atol": 1e-8}
SIZES = [(1, 1, 1, 1), (3, 5, 4, 6), (2, 9, 7, 3)]  # (B, T, D, H)
TORCH = {"rnn": torch.nn.RNN, "lstm": torch.nn.LSTM, "gru": torch.nn.GRU}


def flat(state):
    """torch's final state as a tuple: (h_n,) or (h_n, c_n)."""
    return state if isinstance(state, tuple) else (state,)


def assert_cell_matches_torch(kind: str, B: int, T: int, D: int, H: int, seed: int):
    """Run ``kind`` ("lstm", "gru") from a random initial state, both ways, and compare."""
    torch.manual_seed(seed)
    ref = TORCH[kind](D, H, batch_first=True, dtype=torch.float64)
    ours = load_torch_weights(RecurrentNet(kind, D, H, dtype=torch.float64), ref)
    x = torch.randn(B, T, D, dtype=torch.float64)
    state = tuple(
        torch.randn(1, B, H, dtype=torch.float64) for _ in range(ours.state_size)
    )  # each (1, B, H)
    state = state if len(state) > 1 else state[0]
    xs = [x.clone().requires_grad_() for _ in range(2)]
    out_ref, s_ref = ref(xs[0], state)
    out, s = ours(xs[1], state=state)
    torch.testing.assert_close(out, out_ref, **TOL)
    for a, b in zip(flat(s), flat(s_ref), strict=True):
        torch.testing.assert_close(a, b, **TOL)
    w = torch.randn_like(out)
    ((out_ref * w).sum() + flat(s_ref)[-1].sum()).backward()
    ((out * w).sum() + flat(s)[-1].sum()).backward()
    torch.testing.assert_close(xs[1].grad, xs[0].grad, **TOL)
    for name in TORCH_PARAMETERS:
        torch.testing.assert_close(
            getattr(ours.cells[0], name).grad, getattr(ref, f"{name}_l0").grad, **TOL
        )
