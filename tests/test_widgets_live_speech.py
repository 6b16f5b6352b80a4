"""Chapter 10's two widgets LIVE in JupyterLab: the CTC explorer and the stream view.

The server and the page harness are ``tests/live_lab.py``'s (its module-scoped ``lab``
fixture). One notebook builds a ``CTCAlignmentExplorer`` (random log-probabilities, two
utterances) and a ``TriggerStreamView`` (a synthetic probability track and noise for a
spectrogram), as ``tests/test_widgets_speech.py`` does. Headless Chromium runs all cells
and checks, for each widget: the view renders from the kernel's traits; a control moved in
the view (the time-step slider and buttons, the utterance select; the threshold slider)
changes what is shown and reaches the kernel; a trait set in the kernel reaches the view;
every control carries ``data-lm-suppress-shortcuts`` (an arrow key moves the slider, not
JupyterLab's cell cursor). Neither widget has kernel-only controls (everything is
precomputed): none are marked, and the kernel's side (``index`` checked by its
validator; ``counts()`` at the slider's threshold) follows the view.
"""

from __future__ import annotations

import live_lab as harness
from live_lab import lab  # noqa: F401 - the module-scoped JupyterLab server
from widget_browser import assert_offline, offline_page, unsuppressed_controls

NOTEBOOK = "live_speech.ipynb"
CELLS = [
    "import numpy as np\n"
    "import torch\n"
    "from course_lib.widgets import widget_mode\n"
    "from course_lib.widgets.ctc_alignment import CTCAlignmentExplorer\n"
    "from course_lib.widgets.trigger_stream import TriggerStreamView\n"
    'assert widget_mode() == "live", widget_mode()',
    # 12 frames x 4 classes; u1 spells "a b b" (S' = 7), u2 six frames of "c" (S' = 3)
    "lp = torch.randn(12, 4, generator=torch.Generator().manual_seed(0)).log_softmax(-1)\n"
    "ctc = CTCAlignmentExplorer([('u1', lp, [1, 2, 2]), ('u2', lp[:6], [3])],\n"
    "                           ['_', 'a', 'b', 'c'], title='live ctc')\n"
    "ctc",
    # a hit at 2.0 s (trigger ends 1.9 s), a weak bump at 6.0 s, a missed trigger at 8 s
    "p = np.zeros(500)\n"
    "p[100:150] = 0.8\n"
    "p[300:305] = 0.4\n"
    "mel = np.random.default_rng(0).normal(size=(1000, 40))\n"
    "ts = TriggerStreamView(p, [1.9, 8.0], mel, step_seconds=0.02, title='live stream')\n"
    "ts",
]


def test_ctc_explorer_and_stream_view_live_in_jupyterlab(lab):  # noqa: F811 - fixture
    harness.write_notebook(lab.root / NOTEBOOK, CELLS)
    with offline_page(allow=(lab.url + "/",)) as browser:
        page = browser.page
        page.set_default_timeout(harness.STEP_TIMEOUT_MS)
        step = harness.stepper(page, browser, lab, "live speech widgets")

        def wait_text(selector: str, pattern: str) -> None:
            page.wait_for_function(
                "([s, p]) => { const e = document.querySelector(s);"
                " return !!e && new RegExp(p).test(e.textContent); }",
                arg=[selector, pattern],
            )

        def sees(probe: str, expected: str) -> None:
            assert harness.kernel_sees(page, probe, expected) == expected

        ctc, ts = page.locator(".cw-ctc"), page.locator(".cw-ts")
        with step("open the notebook, run all cells, render both widgets"):
            harness.open_notebook(page, lab, NOTEBOOK)
            page.evaluate(harness.JS_RUN_ALL)
            error = page.locator(
                ".jp-OutputArea [data-mime-type='application/vnd.jupyter.error']"
            )
            ready = ts.locator(".cw-ts-readout").first.or_(error.first)
            ready.wait_for(timeout=harness.RUN_TIMEOUT_MS)
            assert error.count() == 0, f"a cell failed: {error.first.inner_text()}"
            ctc.wait_for()
            assert ctc.count() == 1 and ts.count() == 1
            mimes = page.evaluate(harness.JS_OUTPUT_MIMES)
            assert mimes[1:3] == [[harness.WIDGET_MIME]] * 2, mimes  # anywidget views
            assert page.locator(".course-widget").count() == 0  # not html mode
            for root in (ctc, ts):  # everything is precomputed: no kernel-only control
                assert root.locator("[data-kernel-only]").count() == 0
                assert unsuppressed_controls(root) == []

        # -- CTCAlignmentExplorer ----------------------------------------------------
        probe_ctc = "print(ctc.index, ctc.step)"
        cells = ctc.locator(".cw-ctc-cell")
        out = ctc.locator("output")
        slider = ctc.locator("input[type=range]")
        with step("ctc: the trellis of the first utterance at t = 0"):
            assert ctc.locator(".cw-ctc-title").inner_text() == "live ctc"
            assert cells.count() == 7 * 12  # S' states x T frames
            assert out.inner_text().startswith("t = 0:")
            assert slider.get_attribute("max") == "11"
            assert ctc.locator("select option").all_inner_texts() == ["u1", "u2"]
            assert ctc.get_by_role("button", name="previous frame").is_disabled()
            sees(probe_ctc, "0 0\n")

        with step("ctc: the slider's arrow keys move the view and the kernel"):
            slider.focus()
            before_cell = page.evaluate(harness.JS_ACTIVE)
            for _ in range(3):
                page.keyboard.press("ArrowRight")
            assert page.evaluate(harness.JS_ACTIVE) == before_cell
            assert slider.input_value() == "3"
            assert out.inner_text().startswith("t = 3:")
            assert ctc.locator(".cw-ctc-path").count() == 3
            assert ctc.locator(".cw-ctc-now").count() == 1
            sees(probe_ctc, "0 3\n")
            ctc.get_by_role("button", name="next frame").click()
            assert out.inner_text().startswith("t = 4:")
            sees(probe_ctc, "0 4\n")

        with step("ctc: the utterance select rebuilds the grid and reaches the kernel"):
            ctc.locator("select").select_option(label="u2")
            assert cells.count() == 3 * 6
            assert out.inner_text().startswith("t = 0:")
            assert slider.get_attribute("max") == "5"
            sees(probe_ctc, "1 0\n")

        with step("ctc: a state set in the kernel reaches the view"):
            code = "ctc.index = 0\nctc.step = 11\nprint('set')"
            assert harness.run_cell(page, code) == "set\n"
            wait_text(".cw-ctc output", '"a b b"$')  # the whole path spells the label
            assert cells.count() == 7 * 12
            assert ctc.locator("select").input_value() == "0"
            assert slider.input_value() == "11"
            assert ctc.get_by_role("button", name="next frame").is_disabled()
            assert ctc.locator(".cw-ctc-path").count() == 11

        with step("ctc: a shorter utterance set in the kernel keeps step in range"):
            assert harness.run_cell(page, "ctc.index = 1\nprint(ctc.step)") == "5\n"
            wait_text(".cw-ctc output", "^t = 5:")
            assert cells.count() == 3 * 6
            ctc.get_by_role("button", name="previous frame").click()
            assert out.inner_text().startswith("t = 4:")
            sees(probe_ctc, "1 4\n")
            assert harness.run_cell(page, "ctc.index = 0\nprint(ctc.step)") == "4\n"
            code = (
                "try:\n    ctc.step = 12\nexcept Exception as err:\n"
                "    print(type(err).__name__, ctc.step)"
            )
            assert harness.run_cell(page, code) == "TraitError 4\n"
            assert harness.run_cell(page, "ctc.step = 11\nprint('set')") == "set\n"
            wait_text(".cw-ctc output", '"a b b"$')

        with step("ctc: the kernel refuses an utterance that is not there"):
            code = (
                "try:\n    ctc.index = 2\nexcept Exception as err:\n"
                "    print(type(err).__name__, ctc.index)"
            )
            assert harness.run_cell(page, code) == "TraitError 0\n"
            assert out.inner_text().endswith('"a b b"') and cells.count() == 7 * 12

        # -- TriggerStreamView -------------------------------------------------------
        probe_ts = "print(ts.threshold, ts.counts())"
        readout = ts.locator(".cw-ts-readout")
        th = ts.locator("input[type=range]")
        marks = ts.locator("svg path")  # one triangle per detection
        with step("stream: the view at the kernel's threshold"):
            assert ts.locator(".cw-ts-title").inner_text() == "live stream"
            src = ts.locator("img").get_attribute("src")
            assert src.startswith("data:image/jpeg;base64,")
            assert th.input_value() == "0.5"
            assert readout.inner_text().startswith(
                "threshold 0.50: 1 detections — 1 hits, 0 false alarms, 1 misses"
            )
            assert marks.count() == 1
            sees(probe_ts, "0.5 (1, 0, 1)\n")

        with step("stream: the threshold slider re-scores and reaches the kernel"):
            th.fill("0.3")  # the weak bump becomes a false alarm
            assert readout.inner_text().startswith(
                "threshold 0.30: 2 detections — 1 hits, 1 false alarms, 1 misses"
            )
            assert marks.count() == 2
            sees(probe_ts, "0.3 (1, 1, 1)\n")  # the kernel's counts() agree
            th.focus()
            before_cell = page.evaluate(harness.JS_ACTIVE)
            page.keyboard.press("ArrowRight")
            assert page.evaluate(harness.JS_ACTIVE) == before_cell
            assert th.input_value() == "0.35"
            assert readout.inner_text().startswith("threshold 0.35: 2 detections")
            sees(probe_ts, "0.35 (1, 1, 1)\n")

        with step("stream: a threshold set in the kernel reaches the view"):
            assert harness.run_cell(page, "ts.threshold = 0.9\nprint('set')") == "set\n"
            wait_text(".cw-ts .cw-ts-readout", "^threshold 0.90: 0 detections")
            assert "0 hits, 0 false alarms, 2 misses" in readout.inner_text()
            assert th.input_value() == "0.9" and marks.count() == 0
    assert_offline(browser, allow=(lab.url + "/",), websockets=True)
