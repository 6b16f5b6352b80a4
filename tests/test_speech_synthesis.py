"""Digit strings and trigger-word clips (course_lib.speech.synthesis): invariants."""

import numpy as np
import pytest

from course_lib.data.fsdd import Recording
from course_lib.speech.synthesis import (
    decode_digits,
    digit_strings,
    encode_digits,
    trigger_clips,
    trigger_labels,
)


def _recs(digits, n=400):
    rng = np.random.default_rng(0)
    return [
        Recording(d, "ann", i, (0.5 * rng.standard_normal(n)).astype(np.float32))
        for i, d in enumerate(digits)
    ]


def test_encode_decode_round_trip_and_bad_labels():
    assert encode_digits("307") == [4, 1, 8]
    assert decode_digits([4, 1, 8]) == "307"
    with pytest.raises(ValueError, match="non-empty"):
        encode_digits("")
    with pytest.raises(ValueError, match="outside the alphabet"):
        encode_digits("12a")
    with pytest.raises(ValueError, match="1..10"):
        decode_digits([0, 3])


def test_digit_strings_lengths_spans_and_text():
    recs = _recs([3, 5, 8])
    utts = digit_strings(recs, 30, lengths=(2, 4), seed=1)
    assert utts[0].text == digit_strings(recs, 30, lengths=(2, 4), seed=1)[0].text
    for u in utts:
        assert 2 <= len(u.text) <= 4 and set(u.text) <= {"3", "5", "8"}
        assert len(u.spans) == len(u.text)
        ends = [0] + [e for _, e in u.spans]
        starts = [s for s, _ in u.spans]
        assert all(a <= s for a, s in zip(ends, starts))  # in order, no overlap
        assert all(e - s == 400 for s, e in u.spans) and u.spans[-1][1] < len(u.audio)


def test_trigger_labels_are_exactly_after_each_end():
    y = trigger_labels([100, 700], n_samples=1000, steps=100, label_steps=5)
    assert np.flatnonzero(y).tolist() == [11, 12, 13, 14, 15, 71, 72, 73, 74, 75]
    y = trigger_labels([990], 1000, 100, 50)  # cut at the end of the clip
    assert y.sum() == 0 or np.flatnonzero(y).min() == 100


def test_trigger_clips_invariants():
    clips = trigger_clips(
        _recs([7] * 5, 3000),
        _recs([1, 2, 3], 3000),
        25,
        seconds=2.0,
        steps=100,
        label_steps=10,
        seed=3,
    )
    for c in clips:
        assert c.audio.shape == (16000,) and c.labels.shape == (100,)
        words = sorted(c.words)
        for (_, a1, _), (b0, _, _) in zip(words, words[1:]):
            assert a1 <= b0  # no overlapping inserts
        ends = [e for _, e, t in words if t]
        assert c.trigger_ends == tuple(e / 8000 for e in ends)
        np.testing.assert_array_equal(c.labels, trigger_labels(ends, 16000, 100, 10))
    assert any(len(c.trigger_ends) > 0 for c in clips)
    assert any(not t for c in clips for _, _, t in c.words)


def test_bad_inputs():
    with pytest.raises(ValueError, match="empty"):
        digit_strings([], 1)
    with pytest.raises(ValueError, match="8000 Hz"):
        digit_strings([Recording(1, "a", 0, np.ones(10, np.float32), 16000)], 1)
    with pytest.raises(ValueError, match="lengths"):
        digit_strings(_recs([1]), 1, lengths=(3, 2))
