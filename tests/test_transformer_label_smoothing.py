"""Label smoothing against torch's F.cross_entropy(label_smoothing=...) (Chapter 8)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from course_lib.transformer.label_smoothing import (
    label_smoothed_cross_entropy,
    smoothed_targets,
)


def test_smoothed_targets_rows_sum_to_one_and_gold_gets_the_rest():
    q = smoothed_targets(torch.tensor([0, 3]), 5, 0.1)
    assert torch.allclose(q.sum(-1), torch.ones(2, dtype=torch.float64))
    assert q[0, 0].item() == pytest.approx(0.9 + 0.1 / 5)
    assert q[1, 0].item() == pytest.approx(0.1 / 5)


@pytest.mark.parametrize("epsilon", [0.0, 0.1, 0.5, 1.0])
def test_equals_torch_cross_entropy_with_label_smoothing(epsilon):
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(12, 7, generator=gen, dtype=torch.float64)
    targets = torch.randint(0, 7, (12,), generator=gen)
    targets[[2, 5]] = 0  # padding rows, ignored
    ours = label_smoothed_cross_entropy(logits, targets, epsilon, ignore_index=0)
    ref = F.cross_entropy(logits, targets, ignore_index=0, label_smoothing=epsilon)
    assert abs(ours.item() - ref.item()) < 1e-12
    no_ignore = label_smoothed_cross_entropy(logits, targets, epsilon)
    ref_all = F.cross_entropy(logits, targets, label_smoothing=epsilon)
    assert abs(no_ignore.item() - ref_all.item()) < 1e-12


def test_gradient_matches_torch():
    logits = torch.randn(6, 5, dtype=torch.float64, requires_grad=True)
    targets = torch.tensor([0, 1, 2, 3, 4, 0])
    (g_ours,) = torch.autograd.grad(
        label_smoothed_cross_entropy(logits, targets, 0.2), logits
    )
    (g_ref,) = torch.autograd.grad(
        F.cross_entropy(logits, targets, label_smoothing=0.2), logits
    )
    assert torch.allclose(g_ours, g_ref, atol=1e-12)


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="epsilon"):
        smoothed_targets(torch.tensor([0]), 3, 1.5)
    with pytest.raises(ValueError, match="class ids"):
        smoothed_targets(torch.tensor([0.5]), 3, 0.1)
    with pytest.raises(ValueError, match="logits must be"):
        label_smoothed_cross_entropy(torch.zeros(3, 4), torch.tensor([0, 1]), 0.1)
