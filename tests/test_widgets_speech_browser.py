"""Chapter 10's widgets in headless Chromium, offline, from file:// (html mode)."""

from __future__ import annotations

import re

import numpy as np
import torch
from widget_browser import offline_page, unsuppressed_controls, write_widget_page

from course_lib.widgets.ctc_alignment import CTCAlignmentExplorer
from course_lib.widgets.trigger_stream import TriggerStreamView


def _widgets(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_WIDGET_MODE", "html")
    lp = torch.randn(12, 4, generator=torch.Generator().manual_seed(0)).log_softmax(-1)
    ctc = CTCAlignmentExplorer(
        [("u1", lp, [1, 2, 2]), ("u2", lp[:6], [3])], ["_", "a", "b", "c"]
    )
    p = np.zeros(500)
    p[100:150] = 0.8
    p[300:305] = 0.4
    stream = TriggerStreamView(
        p,
        [1.9, 8.0],
        np.random.default_rng(0).normal(size=(1000, 40)),
        step_seconds=0.02,
        title="stream",
    )
    return write_widget_page(tmp_path / "speech.html", ctc, stream), ctc, stream


def test_ctc_explorer_and_stream_view_work_offline(tmp_path, monkeypatch):
    url, ctc, stream = _widgets(tmp_path, monkeypatch)
    with offline_page() as browser:
        page = browser.page
        page.goto(url)
        w = page.locator(".cw-ctc").first
        cells = w.locator(".cw-ctc-cell")
        cells.first.wait_for()
        assert cells.count() == 7 * 12  # S' states x T frames
        out = w.locator("output")
        assert out.inner_text().startswith("t = 0:")
        w.locator("input[type=range]").focus()
        for _ in range(11):
            page.keyboard.press("ArrowRight")
        assert out.inner_text().endswith(
            '"a b b"'
        )  # the whole path collapses to the label
        assert (
            w.locator(".cw-ctc-path").count() == 11
            and w.locator(".cw-ctc-now").count() == 1
        )
        cells.nth(3).hover()
        assert (
            w.locator(".cw-ctc-readout").inner_text().startswith("frame 3, state 0 (_)")
        )
        w.locator("select").select_option("1")
        assert cells.count() == 3 * 6

        s = page.locator(".cw-ts").first
        readout = s.locator(".cw-ts-readout")
        readout.wait_for()
        hits, fas, misses = stream.counts()
        assert (
            f"{hits} hits, {fas} false alarms, {misses} misses" in readout.inner_text()
        )
        slider = s.locator("input[type=range]")
        slider.fill("0.3")  # a low threshold: the weak bump becomes a false alarm
        hits, fas, misses = stream.counts(0.3)
        assert (
            f"{hits} hits, {fas} false alarms, {misses} misses" in readout.inner_text()
        )
        assert s.locator("svg path").count() == hits + fas
        assert unsuppressed_controls(page) == []
    assert browser.blocked == []
    assert all(re.match(r"(file|blob|data):", u) for u in browser.requests)
    assert browser.errors == []
