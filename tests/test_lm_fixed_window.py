"""Fixed-window neural LM: windows, shapes, learning, bad input."""

import pytest
import torch

from course_lib.decoding import sample
from course_lib.lm.fixed_window import (
    FixedWindowConfig,
    FixedWindowLM,
    evaluate_windows,
    make_windows,
)


def test_windows_pad_the_start():
    x, y = make_windows(torch.tensor([5, 6, 7]), 2, pad_id=0)
    assert x.tolist() == [[0, 0], [0, 5], [5, 6]] and y.tolist() == [5, 6, 7]


def test_learns_a_window_dependency():
    torch.manual_seed(0)
    stream = torch.tensor(
        [0, 1, 2, 0, 3, 4] * 100
    )  # after "0 1" comes 2, after "0 3" comes 4
    x, y = make_windows(stream, 2, pad_id=0)
    model = FixedWindowLM(
        FixedWindowConfig(vocab_size=5, window=2, d_embed=8, d_hidden=16)
    )
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    before = evaluate_windows(model, x, y)
    for _ in range(150):
        opt.zero_grad()
        model(x, y).backward()
        opt.step()
    assert evaluate_windows(model, x, y) < 0.5 * before
    logp, window = model.step(torch.tensor([1]), torch.tensor([[4, 0]]))
    assert window.tolist() == [[0, 1]] and int(logp.argmax()) == 2
    (h,) = sample(model, [0, 1], max_new_tokens=4)
    assert len(h.tokens) == 4


def test_bad_inputs():
    model = FixedWindowLM(FixedWindowConfig(vocab_size=5, window=3))
    with pytest.raises(ValueError, match=r"x must be \(B, W=3\)"):
        model.features(torch.zeros(2, 2, dtype=torch.long))
    with pytest.raises(ValueError, match="window must be >= 1"):
        FixedWindowLM(FixedWindowConfig(vocab_size=5, window=0))
    with pytest.raises(ValueError, match="non-empty"):
        make_windows(torch.tensor([], dtype=torch.long), 2, 0)


@pytest.mark.parametrize("training", [True, False])
def test_evaluate_windows_restores_the_mode(training):
    model = FixedWindowLM(FixedWindowConfig(vocab_size=5, window=2)).train(training)
    x, y = make_windows(torch.tensor([1, 2, 3, 4]), 2, pad_id=0)
    evaluate_windows(model, x, y)
    assert all(m.training == training for m in model.modules())
