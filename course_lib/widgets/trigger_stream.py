"""TriggerStreamView: a stream's spectrogram, the detector's probability, a threshold.

Chapter 10. The per-step probabilities, the true trigger ends and the spectrogram (one
small JPEG) are stored in the page; moving the threshold slider re-runs the streaming
detector in JavaScript (the rule of :func:`course_lib.speech.events.detect_events`: fire
at p ≥ threshold, armed again once p has fallen below it, ``refractory`` steps at least
after the firing) and re-scores hits, false
alarms and misses within ``tolerance`` seconds (:func:`~course_lib.speech.events.match_events`),
so it works in the static book. Front end: ``js/trigger_stream.js``.

Shape legend: Y output steps, M mel bands, T frames.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence

import numpy as np
import traitlets as t
from matplotlib.figure import Figure

from course_lib.speech.events import detect_events, match_events
from course_lib.widgets.base import CourseWidget, js_path, to_jsonable

__all__ = ["TriggerStreamView"]


def _spectrogram_png(log_mel: np.ndarray) -> str:
    """(T, M) log-mel frames as a small JPEG data URL, low bands at the bottom."""
    fig = Figure(figsize=(8, 1.2), dpi=80)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.imshow(log_mel.T, origin="lower", aspect="auto", cmap="magma")
    ax.set_axis_off()
    buf = io.BytesIO()
    fig.savefig(buf, format="jpeg", pil_kwargs={"quality": 60})
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode()


class TriggerStreamView(CourseWidget):
    """The stream view. probs: (Y,) per-step probabilities; step_seconds: seconds per
    step; truths: trigger end times (seconds); log_mel: (T, M) frames of the same audio.
    """

    _esm = js_path("trigger_stream")

    probs = t.List(t.Float()).tag(sync=True)
    truths = t.List(t.Float()).tag(sync=True)
    step_seconds = t.Float(0.02).tag(sync=True)
    refractory = t.Int(50).tag(sync=True)
    tolerance = t.Float(0.5).tag(sync=True)
    threshold = t.Float(0.5).tag(sync=True)
    image = t.Unicode("").tag(sync=True)
    title = t.Unicode("").tag(sync=True)

    def __init__(
        self,
        probs: Sequence[float] | np.ndarray,
        truths: Sequence[float],
        log_mel: np.ndarray,
        *,
        step_seconds: float,
        threshold: float = 0.5,
        refractory: int = 50,
        tolerance: float = 0.5,
        title: str = "",
    ) -> None:
        p = np.asarray(probs, dtype=np.float64)
        if p.ndim != 1 or p.size == 0:
            raise ValueError(
                f"probs must be a non-empty (Y,) array; got shape {p.shape}"
            )
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1]; got {threshold}")
        mel = np.asarray(log_mel, dtype=np.float64)
        if mel.ndim != 2:
            raise ValueError(f"log_mel must be (T, M); got shape {mel.shape}")
        super().__init__(
            probs=to_jsonable(p, 3),
            truths=[round(float(x), 3) for x in truths],
            step_seconds=float(step_seconds),
            refractory=int(refractory),
            tolerance=float(tolerance),
            threshold=float(threshold),
            image=_spectrogram_png(mel),
            title=str(title),
        )

    def detections(self, threshold: float | None = None) -> list[float]:
        """Detection times (seconds) at ``threshold`` (default: the slider's)."""
        th = self.threshold if threshold is None else threshold
        return [
            k * self.step_seconds
            for k in detect_events(self.probs, th, self.refractory)
        ]

    def counts(self, threshold: float | None = None) -> tuple[int, int, int]:
        """(hits, false alarms, misses) at ``threshold``: what the readout shows."""
        return match_events(self.detections(threshold), self.truths, self.tolerance)

    def _plain_text(self) -> str:
        hits, fas, misses = self.counts()
        return (
            f"TriggerStreamView({len(self.probs)} steps, threshold {self.threshold}: "
            f"{hits} hits, {fas} false alarms, {misses} misses)"
        )

    def static_figure(self) -> Figure:
        """Probability over time, the threshold, detections (▼) and trigger ends (|)."""
        fig = Figure(figsize=(10, 2.6), layout="constrained")
        ax = fig.subplots()
        x = np.arange(len(self.probs)) * self.step_seconds
        ax.plot(x, self.probs, lw=1, label="p(trigger just ended)")
        ax.axhline(self.threshold, color="grey", ls="--", lw=1, label="threshold")
        for k, tt in enumerate(self.truths):
            ax.axvline(
                tt,
                color="tab:green",
                lw=1,
                alpha=0.6,
                label="trigger ends" if k == 0 else None,
            )
        det = self.detections()
        ax.plot(det, [1.04] * len(det), "v", color="tab:red", label="detections")
        hits, fas, misses = self.counts()
        ax.set_title(
            f"{self.title} — threshold {self.threshold:.2f}: {hits} hits, "
            f"{fas} false alarms, {misses} misses"
        )
        ax.set_xlabel("seconds")
        ax.set_ylim(0, 1.1)
        ax.legend(loc="upper right", fontsize=7, ncols=4)
        return fig
