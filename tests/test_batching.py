"""course_lib.data.batching: length-bucketed batches, padding and masks, against the plain
definitions (sorted() on each window, a Python loop filling a tensor, t < length)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.data.batching import (
    length_groups,
    length_mask,
    pad,
    pad_with_lengths,
    shuffled_batches,
)


@st.composite
def lengths_and_order(draw):
    lengths = draw(st.lists(st.integers(0, 6), max_size=40))
    order = draw(st.permutations(range(len(lengths))))
    return lengths, order


@settings(max_examples=300)
@given(
    lengths_and_order(),
    st.integers(1, 7),
    st.one_of(st.none(), st.integers(1, 15)),
    st.booleans(),
)
def test_length_groups_is_a_stable_sort_within_windows_cut_into_batches(
    case, batch_size, window, use_order
):
    lengths, order = case
    order = order if use_order else None
    groups = length_groups(lengths, batch_size, order=order, window=window)
    items = list(order) if order is not None else list(range(len(lengths)))
    w = window or max(len(items), 1)
    expected = []
    for start in range(0, len(items), w):  # the definition, written out
        chunk = [(lengths[i], k, i) for k, i in enumerate(items[start : start + w])]
        ranked = [i for _, _, i in sorted(chunk)]  # ties: their place in ``order``
        expected += [
            ranked[j : j + batch_size] for j in range(0, len(ranked), batch_size)
        ]
    assert groups == expected
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))


def test_length_groups_rejects_bad_arguments():
    with pytest.raises(ValueError, match="batch_size must be an int >= 1; got 0"):
        length_groups([1, 2], 0)
    with pytest.raises(ValueError, match="batch_size must be an int >= 1; got 2.0"):
        length_groups([1, 2], 2.0)
    with pytest.raises(ValueError, match="order must be a permutation of the 2 item"):
        length_groups([1, 2], 1, order=[0, 0])
    with pytest.raises(ValueError, match="window must be an int >= 1 or None; got 0"):
        length_groups([1, 2], 1, window=0)


@settings(max_examples=200)
@given(
    st.lists(st.lists(st.integers(-5, 50), max_size=6), min_size=1, max_size=6),
    st.integers(-100, 3),
)
def test_pad_equals_filling_a_tensor_row_by_row(rows, value):
    T = max(len(r) for r in rows)
    expected = torch.full((len(rows), T), value, dtype=torch.long)
    for b, r in enumerate(rows):
        expected[b, : len(r)] = torch.tensor(r, dtype=torch.long)
    padded, lengths = pad_with_lengths(rows, value)
    assert padded.dtype == torch.long and torch.equal(padded, expected)
    assert lengths.tolist() == [len(r) for r in rows]
    assert torch.equal(
        pad([torch.tensor(r, dtype=torch.long) for r in rows], value), expected
    )
    assert torch.equal(
        length_mask(lengths, T),
        expected.new_tensor(
            [[t < len(r) for t in range(T)] for r in rows], dtype=torch.bool
        ),
    )


def test_pad_keeps_frames_and_their_dtype():
    frames = [torch.ones(2, 3), torch.ones(4, 3) * 2]
    x = pad(frames)  # (B, T, M)
    assert x.shape == (2, 4, 3) and x.dtype == torch.float32
    assert x[0, 2:].abs().sum() == 0 and torch.equal(x[1], frames[1])


def test_pad_rejects_what_is_not_a_batch_of_sequences():
    with pytest.raises(ValueError, match="rows is empty"):
        pad([])
    with pytest.raises(ValueError, match="same shape after the first dimension"):
        pad([torch.ones(2, 3), torch.ones(2, 4)])
    with pytest.raises(ValueError, match="same shape after the first dimension"):
        pad([torch.tensor(1)])
    with pytest.raises(ValueError, match="lengths must be 1-D"):
        length_mask(torch.ones(2, 2, dtype=torch.long))


def test_length_mask_defaults_to_the_longest_length():
    mask = length_mask(torch.tensor([2, 0, 3]))
    assert mask.tolist() == [[True, True, False], [False] * 3, [True] * 3]


def test_shuffled_batches_cover_every_row_once_in_a_seeded_order():
    x = torch.arange(10)[:, None] * 1.0  # (10, 1)
    y = torch.arange(10)
    batches = shuffled_batches(x, y, 4, torch.Generator().manual_seed(0))
    assert [len(b) for b, _ in batches] == [4, 4, 2]
    rows = torch.cat([b for _, b in batches])
    order = torch.randperm(10, generator=torch.Generator().manual_seed(0))
    assert torch.equal(rows, order)  # torch's randperm from the same seed
    assert all(
        torch.equal(bx[:, 0].long(), by) for bx, by in batches
    )  # rows stay paired
    with pytest.raises(ValueError, match="same rows"):
        shuffled_batches(x, y[:3], 4, torch.Generator())
