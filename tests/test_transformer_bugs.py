"""The debugging section's bugs: each check catches the buggy version and passes the fix."""

from __future__ import annotations

import pytest
import torch

from course_lib.transformer.attention import scaled_dot_product_attention
from course_lib.transformer.bugs import BUGS, SETUP_BUGS, run_check
from course_lib.transformer.masks import padding_mask


@pytest.mark.parametrize(
    "bug", BUGS + SETUP_BUGS, ids=[b.name for b in BUGS + SETUP_BUGS]
)
def test_check_catches_bug_and_passes_fix(bug):
    assert run_check(bug, "buggy").startswith("caught:")
    assert run_check(bug, "fixed") == "pass"
    bug.check(bug.fixed)  # no exception at all on the fixed version


def test_eight_bugs_with_symptoms():
    assert len(BUGS) == 8
    assert all(b.symptom and b.name for b in BUGS)


def test_run_check_names_which_version():
    with pytest.raises(ValueError, match="'buggy' or 'fixed'"):
        run_check(BUGS[0], "both")


def test_cross_mask_from_target_fails_when_lengths_differ():
    (bug,) = [
        b for b in BUGS if b.name == "cross-attention mask from the target's pads"
    ]
    src = torch.tensor([[5, 6, 7, 8, 9, 9], [5, 6, 0, 0, 0, 0]])  # (B, S), S = 6
    tgt = torch.tensor([[2, 9, 9, 9], [2, 9, 9, 9]])  # (B, T), T = 4
    q, k = torch.randn(2, 2, 4, 8), torch.randn(2, 2, 6, 8)
    with pytest.raises(ValueError, match="must broadcast"):
        scaled_dot_product_attention(q, k, k, bug.buggy(src, tgt, 0))
    assert torch.equal(bug.fixed(src, tgt, 0), padding_mask(src, 0))


def test_mask_without_head_axis_fails_when_batch_differs_from_heads():
    (bug,) = [b for b in BUGS if b.name == "mask without a head axis"]
    scores = torch.randn(3, 2, 4, 4)  # (B, H, T, T), B = 3, H = 2
    mask = torch.rand(3, 4, 4) > 0.3  # (B, T, T)
    mask[..., 0] = True  # every query may attend somewhere
    with pytest.raises(RuntimeError, match="must match"):
        bug.buggy(scores, mask)
    expected = torch.stack(
        [bug.buggy(scores[b : b + 1], mask[b : b + 1])[0] for b in range(3)]
    )
    assert torch.allclose(bug.fixed(scores, mask), expected)  # one sentence at a time


@pytest.mark.parametrize(
    "name, error",
    [
        ("layer and head counts never defined", "NameError: name 'num_layers'"),
        ("positional class called by another name", "NameError: name 'PositionEnc"),
        ("mask argument misspelt in one branch", "TypeError:"),
        ("model built without its arguments", "TypeError:"),
        ("hard-coded .cuda()", ""),  # AssertionError without CUDA, RuntimeError with it
    ],
)
def test_setup_bugs_raise_the_error_their_symptom_names(name, error):
    (bug,) = [b for b in SETUP_BUGS if b.name == name]
    assert run_check(bug, "buggy").startswith("caught: " + error)
    assert error.split(":")[0] in bug.symptom or not error
