"""The SubwordExplorer LIVE in JupyterLab: the merge steps and the kernel's text box.

The server and the page harness are ``tests/live_lab.py``'s (its module-scoped ``lab``
fixture). One notebook trains a tiny plain BPE (no unknown token)
and a WordPiece on a few typed lines and shows a ``SubwordExplorer``. Headless Chromium
runs all cells and checks: the view renders from the kernel's traits with the text box
shown; a step taken in the view reaches the kernel; text typed into the box is tokenized
by the kernel and shown; a character BPE cannot map comes back as the error; a state set
in the kernel reaches the view; every control carries ``data-lm-suppress-shortcuts``.
"""

from __future__ import annotations

import live_lab as harness
from live_lab import lab  # noqa: F401 - the module-scoped JupyterLab server
from widget_browser import assert_offline, offline_page, unsuppressed_controls

NOTEBOOK = "live_subwords.ipynb"
CELLS = [
    "from course_lib.subwords import Tokenizer\n"
    "from course_lib.widgets import SubwordExplorer, widget_mode\n"
    'assert widget_mode() == "live", widget_mode()',
    "lines = ['roses are red', 'violets are blue', 'reds and blues are colours'] * 3\n"
    "bpe = Tokenizer.train(lines, kind='bpe', vocab_size=40)\n"
    "wp = Tokenizer.train(lines, kind='wordpiece', vocab_size=40)\n"
    "sw = SubwordExplorer(bpe, ['roses', 'blue'], wp, title='live subwords')\n"
    "sw",
]
PROBE = "print(sw.index, sw.step, len(sw.items), repr(sw.error))"


def test_subword_explorer_live_in_jupyterlab(lab):  # noqa: F811 - the fixture
    harness.write_notebook(lab.root / NOTEBOOK, CELLS)
    with offline_page(allow=(lab.url + "/",)) as browser:
        page = browser.page
        page.set_default_timeout(harness.STEP_TIMEOUT_MS)
        step = harness.stepper(page, browser, lab, "live subword explorer")
        sw = page.locator(".cw-sw")
        where = sw.locator(".cw-sw-where")
        current = sw.locator(".cw-sw-current .cw-sw-piece > span")

        def wait_text(selector: str, pattern: str) -> None:
            page.wait_for_function(
                "([s, p]) => { const e = document.querySelector(s);"
                " return !!e && new RegExp(p).test(e.textContent); }",
                arg=[selector, pattern],
            )

        with step("open the notebook, run all cells, render the widget"):
            harness.open_notebook(page, lab, NOTEBOOK)
            page.evaluate(harness.JS_RUN_ALL)
            error = page.locator(
                ".jp-OutputArea [data-mime-type='application/vnd.jupyter.error']"
            )
            where.or_(error.first).wait_for(timeout=harness.RUN_TIMEOUT_MS)
            assert error.count() == 0, f"a cell failed: {error.first.inner_text()}"
            assert sw.count() == 1 and page.locator(".course-widget").count() == 0
            assert sw.get_attribute("data-kernel") == "true"
            assert sw.locator(".cw-sw-title").inner_text() == "live subwords"
            assert current.all_inner_texts() == list("roses")
            assert unsuppressed_controls(sw) == []
            assert harness.kernel_sees(page, PROBE, "0 0 2 ''\n") == "0 0 2 ''\n"

        with step("a step in the view reaches the kernel"):
            sw.get_by_role("button", name="next merge").click()
            wait_text(".cw-sw .cw-sw-where", "^merge 1 / ")
            assert current.count() == 4
            assert harness.kernel_sees(page, PROBE, "0 1 2 ''\n") == "0 1 2 ''\n"

        with step("the text box: the kernel tokenizes new text"):
            form = sw.locator("form.cw-sw-ask")
            assert form.is_visible()
            form.locator("input").fill("reds are")
            form.locator("input").press("Enter")
            wait_text(".cw-sw .cw-sw-where", "^merge 0 / ")
            page.wait_for_function(
                "() => document.querySelector('.cw-sw select').options.length === 3"
            )
            assert current.all_inner_texts() == list("reds") + list("are")
            assert harness.kernel_sees(page, PROBE, "2 0 3 ''\n") == "2 0 3 ''\n"

        with step("a character BPE cannot map comes back as the error"):
            form.locator("input").fill("rosé")
            form.locator("input").press("Enter")
            wait_text(".cw-sw .cw-sw-error", "not in the alphabet")
            assert harness.run_cell(page, "print(len(sw.items))") == "3\n"

        with step("a state set in the kernel reaches the view"):
            code = "sw.index = 1\nsw.step = 1\nprint('set')"
            assert harness.run_cell(page, code) == "set\n"
            wait_text(".cw-sw .cw-sw-where", "^merge 1 / ")
            assert sw.locator("select").input_value() == "1"
    assert_offline(browser, allow=(lab.url + "/",), websockets=True)
