"""Chapter 10's widgets: CTCAlignmentExplorer and TriggerStreamView (traits, html, figure)."""

import json
import re

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from course_lib.speech.ctc import collapse, ctc_posteriors
from course_lib.speech.events import detect_events, match_events
from course_lib.widgets.base import js_source
from course_lib.widgets.ctc_alignment import CTCAlignmentExplorer
from course_lib.widgets.trigger_stream import TriggerStreamView

SYMBOLS = ["_", "a", "b", "c"]


def _state(page: str) -> dict:
    m = re.search(
        r'<script type="application/json" id="[^"]+-state">(.*?)</script>', page, re.S
    )
    assert m
    return json.loads(m.group(1))


def _ctc(**kw):
    g = torch.Generator().manual_seed(0)
    lp = torch.randn(12, 4, generator=g).log_softmax(-1)
    return CTCAlignmentExplorer(
        [("u1", lp, [1, 2, 2]), ("u2", lp[:6], [3])], SYMBOLS, **kw
    )


def test_ctc_traits_are_the_posteriors_path_and_prefixes(live):
    w = _ctc(title="trellis")
    assert w.names == ["u1", "u2"] and w.states[0] == [
        "_",
        "a",
        "_",
        "b",
        "_",
        "b",
        "_",
    ]
    lp = torch.randn(12, 4, generator=torch.Generator().manual_seed(0)).log_softmax(-1)
    post, _ = ctc_posteriors(
        lp[None].double(),
        torch.tensor([[1, 2, 2]]),
        torch.tensor([12]),
        torch.tensor([3]),
    )
    np.testing.assert_allclose(
        np.array(w.trellis[0]), post[0].exp().T.numpy(), atol=6e-4
    )
    np.testing.assert_allclose(np.array(w.trellis[0]).sum(0), 1, atol=5e-3)  # per frame
    ext = [0, 1, 0, 2, 0, 2, 0]
    path = [ext[s] for s in w.paths[0]]
    assert collapse(path) == [1, 2, 2]  # the best path spells the label
    assert w.outputs[0][-1] == "a b b"
    assert all(
        w.outputs[0][t] == " ".join(SYMBOLS[k] for k in collapse(path[: t + 1]))
        for t in range(12)
    )


def test_ctc_validation(live):
    lp = torch.randn(3, 4).log_softmax(-1)
    with pytest.raises(ValueError, match="empty"):
        CTCAlignmentExplorer([], SYMBOLS)
    with pytest.raises(ValueError, match="len\\(symbols\\)"):
        CTCAlignmentExplorer([("x", lp, [1])], SYMBOLS[:3])
    with pytest.raises(ValueError, match="cannot hold"):
        CTCAlignmentExplorer([("x", lp, [1, 1, 1])], SYMBOLS)
    with pytest.raises(ValueError, match="label is empty"):
        CTCAlignmentExplorer([("x", lp, [])], SYMBOLS)
    w = _ctc()
    with pytest.raises(Exception, match="index must be in"):
        w.index = 2
    with pytest.raises(Exception, match="step must be in 0..11"):
        w.step = 12
    w.step = 11
    w.index = 1  # six frames: the step follows to its last one, as the view shows
    assert w.step == 5


def test_ctc_html_bundle_and_figure(html):
    w = _ctc()
    page = w._repr_mimebundle_()["text/html"]
    state = _state(page)
    assert state["trellis"] == w.trellis and state["_kernel"] is False
    assert "heatmapParts" in js_source("ctc_alignment")  # the heatmap family's helpers
    assert "https://" not in page and not re.search(r"<script[^>]*\bsrc=", page)
    assert isinstance(w.static_figure(), Figure)


def _stream(**kw):
    p = np.zeros(500)
    p[100:150] = 0.8  # a hit at 2.0 s
    p[300:305] = 0.4  # a weak bump: a false alarm at low thresholds
    return TriggerStreamView(
        p,
        [1.9, 8.0],
        np.random.default_rng(0).normal(size=(1000, 40)),
        step_seconds=0.02,
        **kw,
    )


def test_stream_counts_follow_the_library_rule(live):
    w = _stream()
    assert w.counts() == (1, 0, 1)
    assert w.counts(0.3) == (1, 1, 1)
    for th in (0.3, 0.5, 0.9):
        times = [k * 0.02 for k in detect_events(w.probs, th, w.refractory)]
        assert w.counts(th) == match_events(times, w.truths, w.tolerance)
    assert w.image.startswith("data:image/jpeg;base64,")
    assert "1 hits" in w._plain_text()


def test_stream_validation(live):
    with pytest.raises(ValueError, match="non-empty"):
        TriggerStreamView([], [], np.zeros((3, 4)), step_seconds=0.02)
    with pytest.raises(ValueError, match="threshold"):
        TriggerStreamView([0.1], [], np.zeros((3, 4)), step_seconds=0.02, threshold=0)
    with pytest.raises(ValueError, match=r"\(T, M\)"):
        TriggerStreamView([0.1], [], np.zeros(3), step_seconds=0.02)


def test_stream_html_bundle_and_figure(html):
    w = _stream(title="stream")
    page = w._repr_mimebundle_()["text/html"]
    state = _state(page)
    assert state["probs"] == w.probs and state["threshold"] == 0.5
    assert len(page) < 120_000  # the spectrogram travels as one small JPEG
    assert "https://" not in page and not re.search(r"<script[^>]*\bsrc=", page)
    src = js_source("trigger_stream")
    assert "function detect(" in src and "function score(" in src
    assert isinstance(w.static_figure(), Figure)
