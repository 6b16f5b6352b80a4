"""The html-mode widget in a real browser (headless Chromium), offline, from file://.

The harness (Chromium, Playwright, the offline page) is ``tests/widget_browser.py``;
missing Chromium or Playwright is a failure, not a skip.
"""

from __future__ import annotations

import re
import subprocess
import tempfile

import numpy as np
from widget_browser import (
    FLAGS,
    assert_offline,
    chromium,
    offline_page,
    unsuppressed_controls,
    write_widget_page,
)

from course_lib.widgets import HeatmapExplorer

ROWS = ["</script>", "queen", "man"]
COLS = ["king", "woman"]


def _page(tmp_path, monkeypatch) -> tuple[str, HeatmapExplorer]:
    """A standalone page with two html-mode widgets; returns its file:// URL."""
    monkeypatch.setenv("COURSE_WIDGET_MODE", "html")
    first = HeatmapExplorer(
        {
            "k=1": np.zeros((3, 2)),
            "k=2": np.array([[1.0, 0.0], [0.5, 0.25], [0.0, 1.0]]),
            "k=3": np.ones((3, 2)),
        },
        ROWS,
        COLS,
        title="similarity <b>by</b> rank",
        value_range=(0, 1),
    )
    second = HeatmapExplorer({"only": np.eye(2)}, ["a", "b"], title="second")
    return write_widget_page(tmp_path / "widget.html", first, second), first


def test_dump_dom_renders_cells_and_name(tmp_path, monkeypatch):
    url, _ = _page(tmp_path, monkeypatch)
    with tempfile.TemporaryDirectory() as profile:
        run = subprocess.run(
            [
                chromium(),
                *FLAGS,
                f"--user-data-dir={profile}",
                "--virtual-time-budget=5000",  # let the module import resolve first
                "--dump-dom",
                url,
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert run.returncode == 0, run.stderr[-2000:]
    dom = run.stdout
    assert dom.count('class="cw-hm-cell"') == 3 * 2 + 2 * 2
    assert "k=1  (1/3)" in dom  # the first matrix's name beside the slider
    assert "&lt;/script&gt;" in dom  # an escaped label came through as text
    assert not re.search(r"could not start: [^\"]", dom)  # the loader's error text


def test_playwright_slider_hover_keyboard_and_no_network(tmp_path, monkeypatch):
    url, first = _page(tmp_path, monkeypatch)
    with offline_page() as browser:
        page = browser.page
        page.goto(url)
        widget = page.locator(".cw-hm").first
        cells = widget.locator(".cw-hm-cell")
        cells.first.wait_for()
        assert cells.count() == 6
        assert page.locator(".cw-hm").count() == 2  # both widgets, one module

        def colours() -> list[str]:
            return cells.evaluate_all(
                "cs => cs.map(c => getComputedStyle(c).backgroundColor)"
            )

        before = colours()
        assert len(set(before)) == 1  # all zeros: one colour
        name = widget.locator("output")
        assert name.inner_text().startswith("k=1")

        # keyboard on the slider moves to the next matrix, and the cells change
        slider = widget.locator("input[type=range]")
        slider.focus()
        page.keyboard.press("ArrowRight")
        assert name.inner_text().startswith("k=2")
        after = colours()
        assert after != before and len(set(after)) == 4

        # hover: the readout shows row · col = value of the current matrix
        cells.nth(3).hover()  # row 1 ("queen"), column 1 ("woman")
        readout = widget.locator(".cw-hm-readout")
        assert readout.inner_text() == f"queen · woman = {first.matrices[1][1][1]}"
        assert widget.locator(".cw-hm-row.cw-hl").inner_text() == "queen"
        assert widget.locator(".cw-hm-col.cw-hl").inner_text() == "woman"
        assert widget.locator(".cw-hm-cell.cw-hl").count() == 2 + 3 - 1

        # the grid is keyboard-usable too; the next button goes to the last matrix
        widget.locator(".cw-hm-grid").focus()
        page.keyboard.press("ArrowDown")  # from the hovered cell (queen, woman)
        assert readout.inner_text() == "man · woman = 1"
        page.keyboard.press("ArrowLeft")
        assert readout.inner_text() == "man · king = 0"
        widget.get_by_role("button", name="next matrix").click()
        assert name.inner_text().startswith("k=3")
        assert widget.get_by_role("button", name="next matrix").is_disabled()
        assert readout.inner_text() == "man · king = 1"  # the readout follows
        assert widget.locator(".cw-hm-cell.cw-hl").count() == 0  # focus left
        assert widget.locator(".cw-hm-title").inner_text() == first.title

        # every control keeps JupyterLab's shortcuts off its arrow keys
        assert unsuppressed_controls(page) == []
        # a single-matrix widget hides the slider
        assert not page.locator(".cw-hm").nth(1).locator("input").is_visible()
    assert_offline(browser)
