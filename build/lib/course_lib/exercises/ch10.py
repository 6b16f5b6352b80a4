"""Chapter 10 exercises (Speech): the CTC collapse, the HTK mel scale, event matching.

References: ``course_lib.speech`` (``ctc.collapse``, ``features.hz_to_mel``,
``events.match_events``).
"""

from __future__ import annotations

import math

import torch

from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.speech.ctc import collapse
from course_lib.speech.events import match_events
from course_lib.speech.features import hz_to_mel


def _collapse_cases(gen):
    cases = [
        Case(([1, 1, 0, 1, 2, 2], 0), label="edge: a a _ a b b"),
        Case(([0, 0, 0], 0), label="edge: only blanks"),
        Case(([3, 0, 3, 3, 0, 0, 3], 0), label="edge: blanks between repeats"),
        Case(([2, 2, 4, 4, 1], 4), label="edge: blank is 4"),
    ]
    for i in range(3):
        path = torch.randint(0, 4, (12,), generator=gen).tolist()
        cases.append(Case((path, 0), label=f"random {i}"))
    return cases


def _blanks_first(path, blank=0):
    kept = [int(p) for p in path if int(p) != blank]
    return [s for j, s in enumerate(kept) if j == 0 or s != kept[j - 1]]


def _repeats_kept(path, blank=0):
    return [int(p) for p in path if int(p) != blank]


def _mel(f):
    return hz_to_mel(f)


def _mel_cases(gen):
    grid = torch.tensor([0.0, 100.0, 700.0, 1000.0, 4000.0], dtype=torch.float64)
    rand = torch.rand(6, generator=gen, dtype=torch.float64) * 8000  # (6,)
    return [Case((grid,), label="edge: 0 … 4000 Hz"), Case((rand,), label="random 0")]


def _slaney(f):
    f = torch.as_tensor(f, dtype=torch.float64)
    linear = f / (200.0 / 3)
    log = 15.0 + 27.0 * torch.log(f.clamp_min(1e-10) / 1000.0) / math.log(6.4)
    return torch.where(f < 1000.0, linear, log)


def _natural_log(f):
    return 2595.0 * torch.log1p(torch.as_tensor(f, dtype=torch.float64) / 700.0)


def _match_cases(gen):
    cases = [
        Case(([1.0, 1.1], [1.0], 0.5), label="edge: two detections, one truth"),
        Case(([1.5], [1.0], 0.5), label="edge: exactly at the tolerance"),
        Case(([], [2.0, 3.0], 0.25), label="edge: no detections"),
        Case(([0.9, 2.6], [1.0, 2.0, 3.0], 0.5), label="edge: one miss"),
    ]
    for i in range(3):
        truths = (torch.rand(4, generator=gen) * 10).tolist()
        dets = (torch.rand(5, generator=gen) * 10).tolist()
        cases.append(Case((dets, truths, 1.0), label=f"random {i}"))
    return cases


def _reclaimed(detections, truths, tolerance):
    tp = sum(any(abs(d - t) <= tolerance for t in truths) for d in detections)
    missed = sum(not any(abs(d - t) <= tolerance for d in detections) for t in truths)
    return tp, len(detections) - tp, missed


def _strict(detections, truths, tolerance):
    free, tp = sorted(truths), 0
    for d in sorted(detections):
        hit = next((t for t in free if abs(d - t) < tolerance), None)
        if hit is not None:
            free.remove(hit)
            tp += 1
    return tp, len(detections) - tp, len(free)


register(
    Exercise(
        "ch10.ctc_collapse",
        "ctc_collapse(path: list[int], blank: int) -> list[int]",
        collapse,
        _collapse_cases,
        "First merge runs of the same symbol, THEN drop the blanks: a blank between two "
        "equal symbols keeps them apart (a a _ a b b → a a b).",
        (
            Mistake(
                "the blanks are dropped before the repeats are merged", _blanks_first
            ),
            Mistake("repeats are not merged", _repeats_kept),
        ),
    ),
    Exercise(
        "ch10.hz_to_mel",
        "hz_to_mel(f: (N,) float64 Hz) -> (N,) mel",
        _mel,
        _mel_cases,
        "The HTK mel scale: m = 2595 log10(1 + f / 700).",
        (
            Mistake(
                "it is the Slaney mel scale (linear below 1 kHz), not HTK", _slaney
            ),
            Mistake(
                "a natural log with the constant 2595 (meant for log10)", _natural_log
            ),
        ),
        rtol=1e-6,
        atol=1e-9,
    ),
    Exercise(
        "ch10.match_events",
        "match_events(detections: list[float], truths: list[float], tolerance: float) "
        "-> (tp, fp, misses)",
        match_events,
        _match_cases,
        "In time order, each detection claims the earliest UNCLAIMED truth within "
        "|d − t| <= tolerance; the rest are false positives, unclaimed truths are misses.",
        (
            Mistake("a truth can be claimed by several detections", _reclaimed),
            Mistake("the tolerance is strict (|d − t| < tolerance)", _strict),
        ),
    ),
)
