"""The long-range task (course_lib.rnn.long_range): the data's layout, the classifier's shapes,
training that learns the short distances, clipping and divergence handling, bad input."""

from __future__ import annotations

import pytest
import torch

from course_lib.rnn.long_range import (
    LongRangeClassifier,
    accuracy_by_distance,
    long_range_batch,
    train_long_range,
)


def test_batch_puts_the_marker_d_steps_before_the_key_and_labels_the_key():
    gen = torch.Generator().manual_seed(0)
    tokens, labels, d = long_range_batch(200, 12, n_classes=5, generator=gen)
    assert tokens.shape == (200, 12) and labels.shape == d.shape == (200,)
    assert d.min() >= 1 and d.max() <= 11
    for row, y, dist in zip(tokens, labels, d):
        assert (row == 5).sum() == 1  # one marker
        assert row[12 - dist - 1] == 5 and row[12 - dist] == y
        assert 0 <= y < 5
    fixed = long_range_batch(4, 12, distance=3, generator=gen)[2]
    assert fixed.tolist() == [3, 3, 3, 3]
    again = long_range_batch(
        200, 12, n_classes=5, generator=torch.Generator().manual_seed(0)
    )
    assert torch.equal(again[0], tokens)  # seeded


def test_distances_are_log_uniform():
    gen = torch.Generator().manual_seed(0)
    d = long_range_batch(20_000, 65, generator=gen)[2].double()  # 1..64
    octaves = torch.histc(
        d.log2(), bins=6, min=0, max=6
    )  # [1, 2), [2, 4), ... [32, 64]
    share = octaves / len(d)
    assert torch.allclose(share, torch.full((6,), 1 / 6, dtype=share.dtype), atol=0.02)
    assert d.min() == 1 and d.max() == 64


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_classifier_shapes(cell):
    model = LongRangeClassifier(cell, n_classes=3, hidden=8)
    assert model(torch.randint(4, (5, 7))).shape == (5, 3)


def test_lstm_learns_short_distances():
    torch.manual_seed(0)
    model = LongRangeClassifier("lstm", n_classes=4, hidden=16)
    hist = train_long_range(model, 4, steps=150, batch=32, lr=1e-2)
    assert len(hist["loss"]) == 150 and len(hist["grad_norm"]) == 150
    assert hist["seconds"] > 0  # the training's wall time
    acc = accuracy_by_distance(model, 4, [1, 2, 3], n_per=64)
    assert min(acc.values()) > 0.9, acc


def test_clipping_bounds_the_step_and_divergence_stops_the_run():
    torch.manual_seed(0)
    model = LongRangeClassifier("rnn", n_classes=4, hidden=8)
    with torch.no_grad():
        model.out.weight.fill_(float("nan"))
    hist = train_long_range(model, 5, steps=10, optimizer="sgd", clip_norm=None)
    assert hist["loss"] == [float("inf")]
    model = LongRangeClassifier("rnn", n_classes=4, hidden=8)
    before = [p.detach().clone() for p in model.parameters()]
    hist = train_long_range(model, 5, steps=1, lr=1.0, optimizer="sgd", clip_norm=1e-3)
    step = torch.sqrt(
        sum(((p - b) ** 2).sum() for p, b in zip(model.parameters(), before))
    )
    assert step.item() == pytest.approx(1e-3, rel=1e-3)  # lr · clip_norm


def test_bad_input():
    with pytest.raises(ValueError, match="length >= 2"):
        long_range_batch(2, 1)
    with pytest.raises(ValueError, match=r"1..T−1 = 1..4"):
        long_range_batch(2, 5, distance=5)
    with pytest.raises(ValueError, match="n_classes >= 2"):
        long_range_batch(2, 5, n_classes=1)
    with pytest.raises(ValueError, match="cell must be one of"):
        LongRangeClassifier("lstm2")
    with pytest.raises(ValueError, match="T >= 1"):
        LongRangeClassifier("rnn")(torch.zeros(2, 0, dtype=torch.long))
    model = LongRangeClassifier("rnn", hidden=4)
    with pytest.raises(ValueError, match="optimizer must be"):
        train_long_range(model, 5, optimizer="rmsprop")
    with pytest.raises(ValueError, match="clip_norm must be positive"):
        train_long_range(model, 5, clip_norm=0.0)


@pytest.mark.parametrize("training", [True, False])
def test_accuracy_by_distance_restores_the_mode(training):
    model = LongRangeClassifier("gru", n_classes=3, hidden=4).train(training)
    accuracy_by_distance(model, 4, [1, 2], n_per=4)
    assert all(m.training == training for m in model.modules())
