"""Fixed-window neural LM: windows, shapes, learning, bad input."""

import pytest
import torch

from course_lib.decoding import sample
from course_lib.lm.fixed_window import (
    FixedWindowConfig,
    FixedWindowLM,
    context_windows,
    evaluate_windows,
    make_windows,
    window_log_probs,
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


def _reference_context(ids, kind, n, pad, offsets=None):
    """Pure-Python contexts of every position (the lecture's list, written out)."""
    rows = []
    for t in range(len(ids)):
        if kind == "left":
            offs = range(-n, 0)
        elif kind == "both":
            offs = [*range(-n, 0), *range(1, n + 1)]
        else:
            offs = offsets[t]
        rows.append([ids[t + d] if 0 <= t + d < len(ids) else pad for d in offs])
    return rows


@pytest.mark.parametrize("kind, n", [("left", 4), ("both", 4), ("left", 1)])
def test_context_windows_match_the_lecture(kind, n):
    ids = [5, 6, 7, 8, 9, 10]
    x, y = context_windows(torch.tensor(ids), kind, n, pad_id=0)
    assert x.tolist() == _reference_context(ids, kind, n, 0)
    assert y.tolist() == ids
    if kind == "left":
        x_mw, _ = make_windows(torch.tensor(ids), n, pad_id=0)
        assert torch.equal(x, x_mw)


def test_nearby_context_draws_seeded_offsets_within_reach():
    ids = torch.arange(1, 2001)
    x, y = context_windows(ids, "nearby", 1, pad_id=0, reach=3, seed=1)
    again, _ = context_windows(ids, "nearby", 1, pad_id=0, reach=3, seed=1)
    assert torch.equal(x, again) and torch.equal(y, ids)
    inner = x[3:-3, 0] - y[3:-3]  # the offset of each drawn word
    assert set(inner.tolist()) == {-3, -2, -1, 1, 2, 3}
    assert (x[:, 0] != y).all()  # never the target itself
    offsets = [[int(x[t, 0] - y[t])] if x[t, 0] else [-99] for t in range(len(y))]
    assert x.tolist() == _reference_context(ids.tolist(), "nearby", 1, 0, offsets)
    x2, _ = context_windows(ids, "nearby", 2, pad_id=0, reach=3)
    assert x2.shape == (2000, 2)


def test_context_windows_reject_bad_input():
    with pytest.raises(ValueError, match="kind"):
        context_windows(torch.tensor([1, 2]), "right", 1, pad_id=0)
    with pytest.raises(ValueError, match="n must"):
        context_windows(torch.tensor([1, 2]), "both", 0, pad_id=0)
    with pytest.raises(ValueError, match="reach"):
        context_windows(torch.tensor([1, 2]), "nearby", 1, pad_id=0, reach=0)
    with pytest.raises(ValueError, match="1-D"):
        context_windows(torch.tensor([[1, 2]]), "both", 1, pad_id=0)
    for kind in ("left", "nearby"):  # an empty stream, whatever the context
        with pytest.raises(ValueError, match="non-empty 1-D stream"):
            context_windows(torch.tensor([], dtype=torch.long), kind, 1, pad_id=0)


def test_embed_std_sets_the_initial_spread():
    torch.manual_seed(0)
    cfg = FixedWindowConfig(vocab_size=2000, window=1, d_embed=50, embed_std=0.01)
    std = FixedWindowLM(cfg).embed.weight.std().item()
    assert abs(std - 0.01) < 5e-4
    default = FixedWindowLM(FixedWindowConfig(vocab_size=2000, window=1, d_embed=50))
    assert abs(default.embed.weight.std().item() - 1.0) < 0.05


@pytest.mark.parametrize("cutoffs", [None, (3,)])
def test_window_log_probs_are_each_positions_log_softmax(cutoffs):
    torch.manual_seed(0)
    config = FixedWindowConfig(
        vocab_size=7, window=2, d_embed=4, d_hidden=5, cutoffs=cutoffs
    )
    model = FixedWindowLM(config)
    x, y = make_windows(torch.randint(0, 7, (11,)), 2, pad_id=0)
    lp = window_log_probs(model, x, y, batch_size=3)  # batches of 3, 3, 3, 2
    with torch.no_grad():
        full = model.out.log_prob(model.features(x))  # (M, V)
    torch.testing.assert_close(lp, full[torch.arange(11), y])
    assert abs(evaluate_windows(model, x, y) + lp.double().mean().item()) < 1e-6
