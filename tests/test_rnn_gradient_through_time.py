"""Gradients through time (course_lib.rnn.gradient_through_time): ∂L/∂h_t against a direct
autograd computation, the Jacobian product, vanishing vs. preserved gradients."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from course_lib.rnn.gradient_through_time import (
    hidden_state_gradients,
    initial_input_gradient_norms,
    input_gradient_norms,
    jacobian_norms,
    random_rnn_gradients,
    scale_recurrent_weights,
    trained_input_gradients,
    trained_rnn_gradients,
)
from course_lib.rnn.long_range import LongRangeClassifier, long_range_batch
from course_lib.rnn.rnn_cell import RNNCell
from course_lib.rnn.stacked import RecurrentNet, load_torch_weights
from course_lib.runtime import run_seed


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
def test_hidden_state_gradients_match_torch_module(kind):
    """The gradient at h_t, t < T, is what perturbing h_t would change: compare with the
    torch module restarted from h_t (state (h_t, c_t) for the LSTM)."""
    torch.manual_seed(0)
    ref = {"rnn": torch.nn.RNN, "lstm": torch.nn.LSTM, "gru": torch.nn.GRU}[kind](
        3, 4, batch_first=True, dtype=torch.float64
    )
    cell = load_torch_weights(RecurrentNet(kind, 3, 4, dtype=torch.float64), ref).cells[
        0
    ]
    readout = torch.nn.Linear(4, 2, dtype=torch.float64)
    x = torch.randn(2, 6, 3, dtype=torch.float64)
    y = torch.tensor([0, 1])
    grads = hidden_state_gradients(cell, x, readout, y)
    assert list(grads) == [f"t = {t}" for t in range(1, 7)]
    t = 2  # restart the torch module after step t (1-based) from a leaf h_t
    with torch.no_grad():
        _, state = ref(x[:, :t])
    h = (state[0] if kind == "lstm" else state).clone().requires_grad_()
    rest = (h, state[1]) if kind == "lstm" else h
    out, _ = ref(x[:, t:], rest)
    F.cross_entropy(readout(out[:, -1]), y).backward()
    torch.testing.assert_close(grads[f"t = {t}"], h.grad[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
def test_input_gradient_norms_match_autograd_through_the_torch_module(kind):
    """‖∂L/∂x_{T−k}‖ of our cell equals autograd's through torch's fused module with the
    same weights, step by step, k = 0 (the last input) first."""
    torch.manual_seed(0)
    ref = {"rnn": torch.nn.RNN, "lstm": torch.nn.LSTM, "gru": torch.nn.GRU}[kind](
        3, 4, batch_first=True, dtype=torch.float64
    )
    net = load_torch_weights(RecurrentNet(kind, 3, 4, dtype=torch.float64), ref)
    readout = torch.nn.Linear(4, 2, dtype=torch.float64)
    x = torch.randn(2, 7, 3, dtype=torch.float64, requires_grad=True)
    y = torch.tensor([1, 0])
    norms = input_gradient_norms(net.cells[0], x, readout, y)
    out, _ = ref(x)
    F.cross_entropy(readout(out[:, -1]), y).backward()
    expected = x.grad.norm(dim=(0, 2)).flip(0)  # (T,), k = 0 first
    torch.testing.assert_close(norms, expected, rtol=1e-10, atol=1e-14)
    assert x.grad is not None and norms.shape == (7,)


def test_initial_input_gradients_gated_cells_keep_more_and_none_keeps_it_all():
    """At their own initialisation, 60 steps back: the LSTM with a forget bias of 1 and the
    GRU keep orders of magnitude more than the vanilla RNN, and all three lose most of it."""
    kept = {
        kind: (lambda n: (n[-1] / n[0]).item())(
            initial_input_gradient_norms(kind, 61, bias)
        )
        for kind, bias in (("rnn", 0.0), ("lstm", 1.0), ("gru", 0.0))
    }
    assert kept["lstm"] > 1e6 * kept["rnn"] and kept["gru"] > 1e2 * kept["rnn"], kept
    assert max(kept.values()) < 1e-2, kept
    same = initial_input_gradient_norms("lstm", 61, 1.0)
    assert torch.equal(same, initial_input_gradient_norms("lstm", 61, 1.0))  # seeded
    with pytest.raises(ValueError, match="kind"):
        initial_input_gradient_norms("transformer", 5)


def test_jacobian_norms_match_autograd_and_the_singular_value_bound():
    torch.manual_seed(1)
    cell = RNNCell(3, 5, dtype=torch.float64)
    x = torch.randn(7, 3, dtype=torch.float64)
    norms = jacobian_norms(cell, x)
    assert norms.shape == (7,) and norms[0] == pytest.approx(1.0)

    def h_T_from(h_k, k):
        h = h_k[None]
        for t in range(k, 7):
            h, _ = cell(x[t : t + 1], (h,))
        return h[0]

    with torch.no_grad():
        hs, h = [], torch.zeros(1, 5, dtype=torch.float64)
        for t in range(7):
            h, _ = cell(x[t : t + 1], (h,))
            hs.append(h[0])
    for k in (1, 3, 6):  # ∂h_7/∂h_{7−k}: start at h_{7−k} (index 6 − k), run k steps
        J = torch.autograd.functional.jacobian(
            lambda v, k=k: h_T_from(v, 7 - k), hs[6 - k]
        )
        want = torch.linalg.matrix_norm(J, ord=2)
        assert norms[k].item() == pytest.approx(want.item(), rel=1e-10)
        sigma = torch.linalg.matrix_norm(cell.W_hh.detach(), ord=2)
        assert norms[k] <= sigma**k + 1e-12


def test_small_weights_vanish_and_a_high_forget_bias_keeps_the_gradient():
    rnn = random_rnn_gradients("rnn", 40, 0.5)
    assert rnn["t = 1"].norm() < 1e-8 * rnn["t = 40"].norm()
    lstm = random_rnn_gradients("lstm", 40, 1.0, 3.0)
    assert lstm["t = 1"].norm() > 1e-2 * lstm["t = 40"].norm()
    again = random_rnn_gradients("rnn", 40, 0.5)
    assert all(torch.equal(rnn[k], again[k]) for k in rnn)  # seeded
    cell = scale_recurrent_weights(RNNCell(2, 400, dtype=torch.float64), 1.0)
    assert cell.W_hh.std().item() == pytest.approx(400**-0.5, rel=0.02)


def test_trained_gradients_leave_the_model_alone():
    model = LongRangeClassifier("lstm", hidden=6)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    grads = trained_rnn_gradients(model, 9, batch=4)
    assert len(grads) == 9 and grads["t = 9"].shape == (4, 6)
    assert all(v.dtype == torch.float32 for v in model.state_dict().values())
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru"])
def test_trained_input_gradients_match_autograd_through_the_fused_model(kind):
    """‖∂L/∂x_{T−k}‖ of the copy equals autograd through the model's own torch module."""
    torch.manual_seed(0)
    model = LongRangeClassifier(kind, n_classes=4, embed=5, hidden=6)
    norms = trained_input_gradients(model, 9, distance=3, batch=4, seed=2)
    gen = torch.Generator().manual_seed(run_seed(2))
    tokens, labels, dists = long_range_batch(
        4, 9, n_classes=4, distance=3, generator=gen
    )
    assert (dists == 3).all()
    x = model.embedding(tokens).detach().requires_grad_()  # (B, T, E)
    loss = F.cross_entropy(model.out(model.rnn(x)[0][:, -1]), labels)
    (g,) = torch.autograd.grad(loss, x)
    expected = g.square().sum(dim=(0, 2)).sqrt().flip(0)  # (T,), k = 0 first
    assert norms.shape == (9,) and norms.dtype == torch.float64
    torch.testing.assert_close(norms.float(), expected, rtol=1e-4, atol=1e-7)


def test_bad_input():
    with pytest.raises(ValueError, match="kind must be one of"):
        random_rnn_gradients("lstm2", 5)
    with pytest.raises(ValueError, match="positive int"):
        random_rnn_gradients("rnn", 0)
    with pytest.raises(ValueError, match="scale must be positive"):
        random_rnn_gradients("rnn", 5, -1.0)
    with pytest.raises(TypeError, match="RNNCell"):
        jacobian_norms(object(), torch.zeros(3, 2))
    with pytest.raises(TypeError, match="tanh RNNCell"):
        jacobian_norms(RNNCell(2, 2, "relu"), torch.zeros(3, 2))
    with pytest.raises(ValueError, match=r"\(B, T, D\)"):
        hidden_state_gradients(RNNCell(2, 2), torch.zeros(3, 2), None, None)
