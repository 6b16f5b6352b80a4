"""The copy task and the length experiment (Chapter 8)."""

from __future__ import annotations

import pytest
import torch

from course_lib.transformer.extrapolation import copy_batch, length_experiment


def test_copy_batch_wraps_the_source():
    src, tgt = copy_batch(3, 5, 10, torch.Generator().manual_seed(0))
    assert src.shape == (3, 5) and tgt.shape == (3, 7)
    assert (
        (tgt[:, 1:-1] == src).all()
        and (tgt[:, 0] == 2).all()
        and (tgt[:, -1] == 3).all()
    )
    assert src.min() >= 4 and src.max() < 14
    with pytest.raises(ValueError, match="length"):
        copy_batch(2, 0, 10, torch.Generator())


@pytest.mark.parametrize("positional", ["sinusoidal", "learned"])
def test_length_experiment_scores_every_test_length(positional):
    res = length_experiment(
        positional=positional,
        train_len=3,
        test_lens=(3, 6),
        steps=4,
        d_model=8,
        n_heads=2,
        batch_size=4,
        n_test=4,
    )
    assert set(res["accuracy"]) == {3, 6} and len(res["loss"]) == 4
    assert res["by_position"][6].shape == (7,)
    assert all(0.0 <= a <= 1.0 for a in res["accuracy"].values())


def test_bad_positional_raises():
    with pytest.raises(ValueError, match="positional"):
        length_experiment(positional="rotary")
