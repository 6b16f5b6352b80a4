"""Scoring a trigger-word detector as events, and running it over a stream. Chapter 10.

Per-step accuracy misleads: most steps are 0, so a detector that never fires scores
about as much as the share of zeros. What a user sees are *events*: a detection is a true
positive when it falls within ``tolerance`` seconds of a trigger's end that no other
detection has claimed; precision, recall and F1 count those, and false alarms per minute
(Sequence Models, week 3; the keyword-spotting literature's measure) count the rest.
A streaming detector fires when the probability rises to the threshold, and is armed again
only once the probability has fallen below it: one bump of probability, one detection,
however long it lasts. A refractory window adds a minimum gap between detections, so that
a probability that dips under the threshold and back within one word fires once.

Shape legend: Y output steps.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["detect_events", "event_scores", "false_alarms", "match_events"]


def detect_events(
    probs: Sequence[float] | np.ndarray, threshold: float = 0.5, refractory: int = 50
) -> list[int]:
    """Steps where a streaming detector fires: p_y ≥ threshold while armed. Firing disarms
    it; it is armed again at the first step with p_y < threshold at least ``refractory``
    steps after the firing. probs: (Y,). Returns the firing steps."""
    p = np.asarray(probs, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"probs must be (Y,) for one stream; got shape {p.shape}")
    if not 0.0 < threshold <= 1.0 or refractory < 1:
        raise ValueError(
            f"need 0 < threshold <= 1 and refractory >= 1; got {threshold}, {refractory}"
        )
    fired, armed = [], True
    for y, p_y in enumerate(p):
        if armed and p_y >= threshold:
            fired.append(y)
            armed = False
        elif not armed and p_y < threshold and y - fired[-1] >= refractory:
            armed = True
    return fired


def _claim(
    detections: Sequence[float], truths: Sequence[float], tolerance: float
) -> tuple[list[float], list[float]]:
    """(false alarms, unclaimed truths): each detection, in time order, claims the earliest
    unclaimed truth within ``tolerance`` seconds of it; those that claim none are false."""
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0 seconds; got {tolerance}")
    free, false = sorted(truths), []
    for d in sorted(detections):
        hit = next((t for t in free if abs(d - t) <= tolerance), None)
        if hit is None:
            false.append(d)
        else:
            free.remove(hit)
    return false, free


def match_events(
    detections: Sequence[float], truths: Sequence[float], tolerance: float
) -> tuple[int, int, int]:
    """(true positives, false positives, misses): each detection, in time order, claims
    the earliest unclaimed truth within ``tolerance`` seconds of it."""
    false, free = _claim(detections, truths, tolerance)
    return len(detections) - len(false), len(false), len(free)


def false_alarms(
    detections: Sequence[float], truths: Sequence[float], tolerance: float
) -> list[float]:
    """The times of the detections :func:`match_events` counts as false positives."""
    return _claim(detections, truths, tolerance)[0]


def event_scores(
    detections: Sequence[Sequence[float]],
    truths: Sequence[Sequence[float]],
    *,
    tolerance: float,
    minutes: float,
) -> dict[str, float]:
    """Event precision, recall, F1 and false alarms per minute over several clips.

    detections, truths: per clip, the times (seconds) of detections and trigger ends;
    minutes: the total audio scored. An empty denominator counts as a perfect score.
    """
    if len(detections) != len(truths):
        raise ValueError(
            f"one list of detections per clip: {len(detections)} != {len(truths)}"
        )
    if minutes <= 0:
        raise ValueError(f"minutes must be > 0; got {minutes}")
    tp = fp = fn = 0
    for d, t in zip(detections, truths, strict=True):
        a, b, c = match_events(d, t, tolerance)
        tp, fp, fn = tp + a, fp + b, fn + c
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return dict(
        precision=precision,
        recall=recall,
        f1=f1,
        false_alarms_per_minute=fp / minutes,
        tp=tp,
        fp=fp,
        fn=fn,
    )
