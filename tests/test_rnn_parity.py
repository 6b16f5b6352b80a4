"""course_lib.rnn.parity: the parity gaps are rounding for our cells and large when the
weights are not copied; seconds_per_pass times a pass; bad input."""

from __future__ import annotations

import pytest
import torch

import course_lib.rnn.parity as parity
from course_lib.rnn.parity import seconds_per_pass, torch_parity
from course_lib.rnn.stacked import RecurrentNet


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_our_cells_match_torch_to_rounding(kind):
    gaps = torch_parity(kind)
    assert set(gaps) == {
        "output",
        "state",
        "input_grad",
        "weight_ih",
        "weight_hh",
        "bias_ih",
        "bias_hh",
    }
    assert max(gaps.values()) < 1e-12


def test_parity_sees_weights_that_were_not_copied(monkeypatch):
    monkeypatch.setattr(parity, "load_torch_weights", lambda net, module: net)
    assert min(torch_parity("lstm").values()) > 1e-6


def test_seconds_per_pass_runs_forward_and_backward():
    net = RecurrentNet("gru", 3, 4)
    x = torch.randn(2, 5, 3)
    seconds = seconds_per_pass(net, x, repeats=2, warmup=0)
    assert seconds > 0 and net.cells[0].weight_ih.grad is not None


def test_seconds_per_pass_reads_the_clock_it_is_given():
    ticks = iter(range(0, 100, 2))  # every pass lasts 2 "seconds" of this clock
    net = RecurrentNet("gru", 3, 4)
    seconds = seconds_per_pass(
        net, torch.randn(2, 5, 3), repeats=3, clock=lambda: next(ticks)
    )
    assert seconds == 2


def test_bad_input():
    with pytest.raises(ValueError, match="kind must be one of"):
        torch_parity("rnn")
    with pytest.raises(ValueError, match=">= 1"):
        torch_parity("lstm", T=0)
    with pytest.raises(ValueError, match="repeats must be"):
        seconds_per_pass(RecurrentNet("gru", 3, 4), torch.randn(1, 2, 3), repeats=0)
