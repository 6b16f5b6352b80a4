"""Event-level scoring and the streaming detector (course_lib.speech.events)."""

import numpy as np
import pytest

from course_lib.speech.events import (
    detect_events,
    event_scores,
    false_alarms,
    match_events,
)


def test_detector_fires_once_per_refractory_window():
    p = np.zeros(100)
    p[10:30] = 0.9  # one long bump: one firing
    p[35:37] = 0.9  # inside the refractory window of the first: ignored
    p[70] = 0.6
    assert detect_events(p, 0.5, refractory=40) == [10, 70]
    assert detect_events(p, 0.95, refractory=40) == []


def test_detector_re_arms_when_the_probability_falls_not_on_time():
    p = np.zeros(300)
    p[10:200] = 0.9  # a bump four refractory windows long: still one firing
    assert detect_events(p, 0.5, refractory=50) == [10]
    p[220:230] = 0.9  # after the fall and the window: a second one
    assert detect_events(p, 0.5, refractory=50) == [10, 220]
    p[5] = 0.7  # a blip at the start fires, and the bump 5 steps later does not
    assert detect_events(p, 0.5, refractory=50) == [5, 220]
    assert detect_events(np.full(10, 0.9), 0.5, refractory=1) == [0]


def test_matching_with_tolerance():
    assert match_events([1.0, 1.1, 5.0], [1.05, 3.0], tolerance=0.2) == (1, 2, 1)
    assert match_events([], [1.0], 0.5) == (0, 0, 1)


def test_false_alarms_are_the_detections_that_claim_no_truth():
    # 1.1 comes second to a truth 1.0 already claimed: a double firing is a false alarm
    assert false_alarms([5.0, 1.0, 1.1], [1.05, 3.0], tolerance=0.2) == [1.1, 5.0]
    rng = np.random.default_rng(0)
    for _ in range(50):
        det, tru = rng.uniform(0, 10, rng.integers(0, 6)), rng.uniform(0, 10, 4)
        tp, fp, _ = match_events(det, tru, 0.5)
        times = false_alarms(det, tru, 0.5)
        assert len(times) == fp and set(times) <= set(det)


def test_scores_and_false_alarms_per_minute():
    s = event_scores(
        [[1.0, 9.0], [2.0]], [[1.2], [2.1, 5.0]], tolerance=0.5, minutes=0.5
    )
    assert (s["tp"], s["fp"], s["fn"]) == (2, 1, 1)
    assert s["precision"] == pytest.approx(2 / 3) and s["recall"] == pytest.approx(
        2 / 3
    )
    assert s["f1"] == pytest.approx(2 / 3) and s["false_alarms_per_minute"] == 2.0


def test_all_zeros_scores_high_per_step_but_zero_recall():
    labels = np.zeros(1000)
    labels[100:150] = 1
    never = np.zeros(1000)
    assert (never == labels).mean() == 0.95
    s = event_scores(
        [[k for k in detect_events(never + 1e-3, 0.5)]],
        [[1.0]],
        tolerance=0.5,
        minutes=1,
    )
    assert s["recall"] == 0.0 and s["f1"] == 0.0


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"\(Y,\)"):
        detect_events(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="threshold"):
        detect_events(np.zeros(3), threshold=0.0)
    with pytest.raises(ValueError, match="one list"):
        event_scores([[1.0]], [], tolerance=1, minutes=1)
