"""T5's span corruption against T5's own arithmetic, over every length and setting (Hypothesis).

The reference is ``random_spans_noise_mask``'s arithmetic in the T5 code base
(t5/data/preprocessors.py), written here with numpy's float32 as TensorFlow computes it:
``length = max(length, 2)``; ``num_noise = round(float32(length) · float32(density))``
clipped to 1 … length − 1; ``num_spans = max(round(float32(num_noise) / float32(mean)), 1)``;
rounding half to even; the mask is made for the lengthened sequence and cut back. Our counts
must equal it for every length from 1 and every density and mean span length, and the mask
must hold exactly that many noise tokens in that many spans, a kept span first. Where T5's
segmentation fails (more noise spans than kept tokens to separate them, e.g. L = 6 at
density 0.875), ours raises a ValueError that says so.
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
