"""The parity check the recurrent-cell tests share: ``course_lib.rnn.parity.torch_parity``
(a one-layer ``RecurrentNet`` of our cell against ``torch.nn.LSTM/GRU`` with copied weights,
float64: outputs, final states, the gradients of the inputs and of every parameter), asserted
below a tolerance. Used by tests/test_rnn_*.py."""

from __future__ import annotations

import torch

from course_lib.rnn.parity import torch_parity

TOL = {"rtol": 1e-8, "atol": 1e-8}
SIZES = [(1, 1, 1, 1), (3, 5, 4, 6), (2, 9, 7, 3)]  # (B, T, D, H)
TORCH = {"rnn": torch.nn.RNN, "lstm": torch.nn.LSTM, "gru": torch.nn.GRU}


def flat(state):
    """torch's final state as a tuple: (h_n,) or (h_n, c_n)."""
    return state if isinstance(state, tuple) else (state,)


def assert_cell_matches_torch(kind: str, B: int, T: int, D: int, H: int, seed: int):
    """Run ``kind`` ("lstm", "gru") from a random initial state, both ways, and compare."""
    gaps = torch_parity(kind, B, T, D, H, seed=seed)
    bad = {name: gap for name, gap in gaps.items() if not gap <= TOL["atol"]}
    assert not bad, f"{kind} differs from torch (B, T, D, H = {B, T, D, H}): {bad}"
