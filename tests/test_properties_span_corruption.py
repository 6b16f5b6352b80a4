"""T5's span corruption against T5's own arithmetic, over every length and setting (Hypothesis).

The reference is ``random_spans_noise_mask``'s arithmetic in the T5 code base
(t5/data/preprocessors.py), written here with numpy's float32 as TensorFlow computes it:
``length = max(length, 2)``; ``num_noise = round(float32(length) · float32(density))``
clipped to 1 … length − 1; ``num_spans = max(round(float32(num_noise) / float32(mean)), 1)``;
rounding half to even; the mask is made for the lengthened sequence and cut back. Our counts
must equal it for every length from 1 and every density and mean span length, and the mask
must hold exactly that many noise tokens in that many spans, a kept span first. Where T5's
segmentation fails (more noise spans than kept tokens to separate them, e.g. L = 6 at
density 0.875), ours raises a ValueError that says so. ``span_batch``, which corrupts a
whole batch at once, must give every row exactly what ``span_corrupt`` gives it from the
same draws, and fail where it fails.
"""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.pretraining import (
    noise_counts,
    random_spans_noise_mask,
    rebuild,
    span_batch,
    span_corrupt,
)


def t5_counts(length, density, mean_span):
    length = max(length, 2)
    num_noise = int(np.round(np.float32(length) * np.float32(density)))
    num_noise = min(max(num_noise, 1), length - 1)
    num_spans = int(np.round(np.float32(num_noise) / np.float32(mean_span)))
    return num_noise, max(num_spans, 1)


DENSITY = st.one_of(st.just(0.15), st.floats(0.01, 0.99))
MEAN = st.one_of(st.just(3.0), st.floats(1.0, 10.0))


@settings(max_examples=500)
@given(st.one_of(st.integers(1, 40), st.integers(1, 100_000)), DENSITY, MEAN)
def test_counts_equal_t5s_float32_arithmetic(length, density, mean_span):
    assert noise_counts(length, density, mean_span) == t5_counts(
        length, density, mean_span
    )


@settings(max_examples=150)
@given(st.integers(1, 300), DENSITY, MEAN, st.integers(0, 2**16))
def test_mask_has_t5s_counts_and_the_original_comes_back(length, density, mean, seed):
    gen = torch.Generator().manual_seed(seed)
    num_noise, num_spans = t5_counts(length, density, mean)
    if num_spans > max(length, 2) - num_noise:  # fewer kept tokens than kept spans:
        with pytest.raises(ValueError, match="kept spans"):  # T5's segmentation fails
            random_spans_noise_mask(length, density, mean, generator=gen)
        return
    mask = random_spans_noise_mask(length, density, mean, generator=gen).tolist()
    assert len(mask) == length
    if length >= 2:  # length 1 is made as 2 and cut back, like T5
        starts = [i for i, m in enumerate(mask) if m and (i == 0 or not mask[i - 1])]
        assert (sum(mask), len(starts)) == (num_noise, num_spans)
        assert not mask[0]
    sentinels = list(range(1000, 1000 + num_spans))
    tokens = list(range(length))
    gen = torch.Generator().manual_seed(seed)
    inputs, targets = span_corrupt(
        tokens, sentinels, noise_density=density, mean_span=mean, generator=gen
    )
    assert rebuild(inputs, targets, sentinels) == tokens


@settings(max_examples=150)
@given(st.integers(1, 6), st.integers(2, 200), DENSITY, MEAN, st.integers(0, 2**16))
def test_a_batch_corrupted_at_once_equals_each_row_corrupted_alone(
    rows, length, density, mean, seed
):
    blocks = torch.randint(
        4, 1000, (rows, length), generator=torch.Generator().manual_seed(seed)
    )
    num_noise, num_spans = t5_counts(length, density, mean)
    sentinels = list(range(1000, 1000 + max(num_spans - seed % 2, 1)))  # some too few
    frame = dict(bos_id=1, eos_id=2, pad_id=0, noise_density=density, mean_span=mean)
    one_by_one = torch.Generator().manual_seed(seed)
    try:
        rows_alone = [
            span_corrupt(
                row,
                sentinels,
                noise_density=density,
                mean_span=mean,
                generator=one_by_one,
            )
            for row in blocks
        ]
    except ValueError as error:  # too few kept tokens, or too few sentinels
        words = "kept spans" if "kept spans" in str(error) else "sentinels"
        with pytest.raises(ValueError, match=words):
            span_batch(
                blocks,
                sentinels,
                generator=torch.Generator().manual_seed(seed),
                **frame,
            )
        return
    src, tgt = span_batch(
        blocks, sentinels, generator=torch.Generator().manual_seed(seed), **frame
    )
    assert src.tolist() == [inputs + [2] for inputs, _ in rows_alone]
    assert tgt.tolist() == [[1] + targets + [2] for _, targets in rows_alone]
