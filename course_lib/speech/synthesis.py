"""Training data made from real recordings: digit strings and trigger-word clips. Chapter 10.

*Sequence Models*, week 3 (trigger word detection): a clip is a background with words
inserted at random, non-overlapping places, and the target of an output step is 1 for the
``label_steps`` steps right after each trigger word ends. The digit strings for CTC
concatenate 2-7 isolated FSDD recordings with random silences and noise between them.

All randomness comes from a ``numpy.random.Generator`` seeded by the caller.
Shape legend: N samples, Y output steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.signal

from course_lib.data.fsdd import FSDD_RATE, Recording
from course_lib.runtime import run_seed

__all__ = [
    "DIGITS",
    "TriggerClip",
    "Utterance",
    "background_noise",
    "decode_digits",
    "digit_strings",
    "encode_digits",
    "trigger_clips",
    "trigger_labels",
]

DIGITS = "0123456789"  # CTC classes: 0 is the blank, digit d is class d + 1


def encode_digits(text: str) -> list[int]:
    """A digit string as CTC classes ("307" → [4, 1, 8]); blank 0 is never a label."""
    if not isinstance(text, str) or not text:
        raise ValueError(f"a label must be a non-empty string of digits; got {text!r}")
    bad = sorted(set(text) - set(DIGITS))
    if bad:
        raise ValueError(f"label {text!r} has symbols outside the alphabet 0-9: {bad}")
    return [int(c) + 1 for c in text]


def decode_digits(classes: Sequence[int]) -> str:
    """CTC classes back to a digit string ([4, 1, 8] → "307")."""
    if any(not 1 <= int(k) <= 10 for k in classes):
        raise ValueError(
            f"classes must lie in 1..10 (0 is the blank); got {list(classes)}"
        )
    return "".join(DIGITS[int(k) - 1] for k in classes)


@dataclass(frozen=True)
class Utterance:
    """A synthetic digit string: samples (N,), its text and each digit's (start, end)."""

    audio: np.ndarray
    text: str
    spans: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class TriggerClip:
    """A trigger-word clip: samples (N,), step labels (Y,), inserted words and ends.

    words: (start, end, is_trigger) in samples, sorted by start; trigger_ends: seconds.
    """

    audio: np.ndarray
    labels: np.ndarray
    words: tuple[tuple[int, int, bool], ...]
    trigger_ends: tuple[float, ...]


def background_noise(n: int, level: float, rng: np.random.Generator) -> np.ndarray:
    """Generated background: white noise plus a random share of brown (leaky-integrated) noise,
    scaled to RMS ``level``. Returns (N,) float32."""
    white = rng.standard_normal(n)
    brown = scipy.signal.lfilter([1.0], [1.0, -0.995], rng.standard_normal(n))  # leaky
    mix = white + rng.uniform(0, 1) * brown / (brown.std() + 1e-9)
    return (level * mix / (mix.std() + 1e-9)).astype(np.float32)


def _scaled(rec: Recording, rng: np.random.Generator) -> np.ndarray:
    """One recording at a random loudness: peak in [0.3, 0.9]."""
    a = rec.audio.astype(np.float32)
    return a / (np.abs(a).max() + 1e-9) * rng.uniform(0.3, 0.9)


def _check_recordings(recordings: Sequence[Recording], what: str) -> None:
    if not recordings:
        raise ValueError(f"{what} is empty: pass at least one FSDD recording")
    if any(r.sample_rate != FSDD_RATE for r in recordings):
        raise ValueError(f"{what} must all be sampled at {FSDD_RATE} Hz")


def digit_strings(
    recordings: Sequence[Recording],
    n: int,
    *,
    lengths: tuple[int, int] = (2, 7),
    gap: tuple[float, float] = (0.05, 0.3),
    noise: tuple[float, float] = (0.002, 0.02),
    seed: int = 0,
) -> list[Utterance]:
    """``n`` utterances of ``lengths[0]``..``lengths[1]`` random recordings each.

    Between and around the digits: silence of ``gap`` seconds (uniform); the whole
    utterance gets background noise of RMS uniform in ``noise``.
    """
    _check_recordings(recordings, "recordings")
    lo, hi = lengths
    if not 1 <= lo <= hi:
        raise ValueError(f"lengths must be (lo, hi) with 1 <= lo <= hi; got {lengths}")
    rng = np.random.default_rng(run_seed(seed))
    out = []
    for _ in range(n):
        picks = rng.integers(len(recordings), size=rng.integers(lo, hi + 1))
        pieces, spans, pos = [], [], 0
        for i in picks:
            silence = np.zeros(int(rng.uniform(*gap) * FSDD_RATE), np.float32)
            word = _scaled(recordings[i], rng)
            pieces += [silence, word]
            pos += len(silence)
            spans.append((pos, pos + len(word)))
            pos += len(word)
        pieces.append(np.zeros(int(rng.uniform(*gap) * FSDD_RATE), np.float32))
        audio = np.concatenate(pieces)
        audio += background_noise(len(audio), rng.uniform(*noise), rng)
        text = "".join(str(recordings[i].digit) for i in picks)
        out.append(Utterance(audio, text, tuple(spans)))
    return out


def trigger_labels(ends: Sequence[int], n_samples: int, steps: int, label_steps: int):
    """Y = ``steps`` step labels: 1 for the ``label_steps`` steps after each end sample.

    The step holding sample e is ⌊e · Y / N⌋; the ones start at the next step.
    Returns (Y,) float32.
    """
    y = np.zeros(steps, np.float32)
    for e in ends:
        k = int(e * steps // n_samples) + 1
        y[k : k + label_steps] = 1.0
    return y


def _place(length: int, taken: list[tuple[int, int]], n: int, rng, tries: int = 50):
    """A random start for a segment of ``length`` that overlaps nothing in ``taken``."""
    for _ in range(tries):
        start = int(rng.integers(0, n - length))
        if all(start + length <= a or start >= b for a, b in taken):
            return start
    return None


def trigger_clips(
    triggers: Sequence[Recording],
    negatives: Sequence[Recording],
    n: int,
    *,
    seconds: float = 10.0,
    steps: int = 499,
    label_steps: int = 50,
    max_triggers: int = 4,
    max_negatives: int = 3,
    noise: tuple[float, float] = (0.005, 0.03),
    seed: int = 0,
) -> list[TriggerClip]:
    """``n`` clips of ``seconds`` of background with 0..``max_triggers`` trigger words and
    0..``max_negatives`` other words inserted without overlap (as *Sequence Models* builds
    them); ``steps`` output steps per clip, labelled by :func:`trigger_labels`.
    """
    _check_recordings(triggers, "triggers")
    _check_recordings(negatives, "negatives")
    if label_steps < 1 or steps < 1:
        raise ValueError(
            f"steps and label_steps must be >= 1; got {steps}, {label_steps}"
        )
    rng = np.random.default_rng(run_seed(seed))
    N = int(seconds * FSDD_RATE)
    out = []
    for _ in range(n):
        audio = background_noise(N, rng.uniform(*noise), rng)
        taken: list[tuple[int, int]] = []
        words = []
        n_pos = int(rng.integers(0, max_triggers + 1))
        n_neg = int(rng.integers(0, max_negatives + 1))
        for is_trigger, pool, count in (
            (True, triggers, n_pos),
            (False, negatives, n_neg),
        ):
            for i in rng.integers(len(pool), size=count):
                word = _scaled(pool[i], rng)
                start = _place(len(word), taken, N, rng)
                if start is None:  # no room left: fewer words in this clip
                    continue
                audio[start : start + len(word)] += word
                taken.append((start, start + len(word)))
                words.append((start, start + len(word), is_trigger))
        words.sort()
        ends = [e for _, e, t in words if t]
        labels = trigger_labels(ends, N, steps, label_steps)
        out.append(
            TriggerClip(audio, labels, tuple(words), tuple(e / FSDD_RATE for e in ends))
        )
    return out
