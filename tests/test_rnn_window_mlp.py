"""The fixed-window MLP (course_lib.rnn.window_mlp) and its comparison with an RNN
(course_lib.rnn.window_against_recurrent): the forward pass against a hand computation
with torch.nn.functional, the window's exact truncation and padding, the parameter counts
against their formulas, training through fit on train_long_range's batches, and the
comparison's accuracies (chance beyond the window)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from course_lib.rnn.long_range import LongRangeClassifier, train_long_range
from course_lib.rnn.window_against_recurrent import (
    WindowComparison,
    compare_windows,
    n_params,
    train_on_task,
)
from course_lib.rnn.window_mlp import WindowMLP, window_mlp_params


def _hand_logits(model: WindowMLP, tokens: torch.Tensor) -> torch.Tensor:
    """U tanh(W [e_{T−w+1}; …; e_T] + b_1) + b_2, written out with torch.nn.functional."""
    w, (B, T) = model.window, tokens.shape
    if T < w:  # pad on the left with the padding id
        pad = torch.full((B, w - T), model.pad_id, dtype=tokens.dtype)
        tokens = torch.cat([pad, tokens], dim=1)
    x = tokens[:, tokens.size(1) - w :]  # (B, w)
    e = F.embedding(x, model.embedding.weight).reshape(B, -1)  # (B, w·E)
    h = torch.tanh(e @ model.W.weight.T + model.W.bias)  # (B, H)
    return h @ model.U.weight.T + model.U.bias  # (B, C)


@pytest.mark.parametrize("length", [1, 3, 5, 9])
def test_forward_equals_the_hand_computation(length):
    torch.manual_seed(0)
    model = WindowMLP(5, n_classes=4, embed=3, hidden=7).double()
    tokens = torch.randint(6, (6, length))  # symbols, the marker and the padding
    logits = model(tokens)
    assert logits.shape == (6, 4) and logits.dtype == torch.float64
    torch.testing.assert_close(logits, _hand_logits(model, tokens), rtol=0, atol=1e-12)


def test_tokens_outside_the_window_leave_the_logits_bitwise_unchanged():
    torch.manual_seed(0)
    model = WindowMLP(4, n_classes=5, embed=8, hidden=16)
    gen = torch.Generator().manual_seed(1)
    tokens = torch.randint(6, (32, 20), generator=gen)
    other = tokens.clone()
    other[:, :16] = torch.randint(6, (32, 16), generator=gen)  # all but the last 4
    assert not torch.equal(other, tokens)
    assert torch.equal(model(other), model(tokens))
    assert torch.equal(model(tokens), model(tokens[:, -4:]))  # the window alone
    inside = tokens.clone()
    inside[:, -4] = (inside[:, -4] + 1) % 6  # the window's first token
    assert not torch.equal(model(inside), model(tokens))


def test_a_short_sequence_is_padded_on_the_left():
    model = WindowMLP(6, n_classes=3, embed=4, hidden=5)
    tokens = torch.randint(4, (2, 4))
    padded = torch.cat([torch.full((2, 2), model.pad_id), tokens], dim=1)
    assert model.pad_id == 4
    assert torch.equal(model(tokens), model(padded))


@pytest.mark.parametrize(
    ("window", "n_classes", "embed", "hidden"),
    [(1, 2, 1, 1), (5, 8, 16, 32), (40, 3, 7, 9)],
)
def test_parameter_count_equals_the_formula(window, n_classes, embed, hidden):
    model = WindowMLP(window, n_classes=n_classes, embed=embed, hidden=hidden)
    sizes = dict(n_classes=n_classes, embed=embed, hidden=hidden)
    C, E, H = n_classes, embed, hidden
    assert n_params(model) == window_mlp_params(window, **sizes)
    assert n_params(model) == (C + 2) * E + window * E * H + H + H * C + C
    # one more token of window: one more E x H block of W
    grown = window_mlp_params(window + 1, **sizes) - window_mlp_params(window, **sizes)
    assert grown == E * H


def test_the_lstm_count_equals_its_formula_whatever_the_length():
    C, E, H = 8, 16, 32
    model = LongRangeClassifier("lstm", n_classes=C, embed=E, hidden=H)
    lstm = 4 * H * (E + H) + 2 * 4 * H  # four gates: W_x, W_h and two biases each
    assert n_params(model) == (C + 1) * E + lstm + H * C + C
    for length in (3, 30):  # one set of weights reads any length
        assert model(torch.randint(C, (2, length))).shape == (2, C)


def test_train_on_task_is_train_long_range_through_fit():
    runs = []
    for train in ("fit", "loop"):
        torch.manual_seed(0)
        model = LongRangeClassifier("rnn", n_classes=4, embed=4, hidden=8)
        if train == "fit":
            loss = train_on_task(model, 6, steps=12, batch=16, seed=3).step_loss
        else:
            loss = train_long_range(model, 6, steps=12, batch=16, seed=3)["loss"]
        runs.append((loss, model.state_dict()))
    (loss_a, state_a), (loss_b, state_b) = runs
    assert loss_a == loss_b  # the same batches, the same updates
    assert all(torch.equal(state_a[k], state_b[k]) for k in state_a)


def test_the_mlp_is_at_chance_beyond_its_window_and_learns_inside():
    torch.manual_seed(0)
    result = compare_windows(
        8,
        (1, 3),
        list(range(1, 8)),
        recurrent="lstm",
        n_classes=4,
        hidden=16,
        steps=150,
        batch=64,
        lr=1e-2,
        n_per=400,
    )
    assert set(result.accuracy) == {"w = 1", "w = 3", "LSTM"}
    assert result.window == {"w = 1": 1, "w = 3": 3}
    assert set(result.seconds) == {"w = 1", "w = 3", "LSTM"}
    assert result.params["w = 3"] - result.params["w = 1"] == 2 * 16 * 16
    chance = 1 / 4
    for name, w in result.window.items():
        beyond = [result.accuracy[name][d] for d in range(w + 1, 8)]
        tolerance = 4 * math.sqrt(chance * (1 - chance) / (400 * len(beyond)))
        assert abs(sum(beyond) / len(beyond) - chance) < tolerance, (name, beyond)
    assert result.accuracy["w = 1"][1] > 0.9  # the last token is the symbol
    trained = LongRangeClassifier("lstm", n_classes=4, hidden=16)
    given = compare_windows(8, (2,), [1, 7], recurrent=trained, n_classes=4, steps=2)
    assert set(given.accuracy) == {"w = 2", "LSTM"} and "LSTM" not in given.seconds
    assert given.params["LSTM"] == n_params(trained)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="window"):
        WindowMLP(0)
    with pytest.raises(ValueError, match="tokens"):
        WindowMLP(2)(torch.zeros(5, dtype=torch.long))
    with pytest.raises(ValueError, match="distances"):
        compare_windows(6, (2,), [6], steps=1)
    with pytest.raises(ValueError, match="windows"):
        compare_windows(6, (), [1], steps=1)


def test_inside_and_beyond_average_each_side_of_the_window():
    result = WindowComparison(distances=[1, 2, 3, 4])
    result.window = {"w = 2": 2}
    result.accuracy = {"w = 2": {1: 0.9, 2: 0.7, 3: 0.2, 4: 0.1}, "LSTM": {1: 1.0}}
    inside, beyond = result.inside_and_beyond("w = 2")
    assert math.isclose(inside, 0.8) and math.isclose(beyond, 0.15)
    with pytest.raises(KeyError, match="has no window"):
        result.inside_and_beyond("LSTM")
    result.window = {"w = 2": 5}
    with pytest.raises(ValueError, match="both sides"):
        result.inside_and_beyond("w = 2")
