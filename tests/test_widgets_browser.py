"""The html-mode widget in a real browser (headless Chromium), offline, from file://.

Needs Debian's ``chromium`` (``apt-get install chromium``) and the Python ``playwright``
package driving that same binary (no browser download). Missing either is a failure,
not a skip: the book's widgets are only known to work if this runs.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile

import numpy as np
import pytest

from course_lib.widgets import HeatmapExplorer

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROWS = ["</script>", "queen", "man"]
COLS = ["king", "woman"]


def _chromium() -> str:
    path = shutil.which("chromium") or (CHROMIUM if shutil.which(CHROMIUM) else None)
    if path is None:
        pytest.fail(
            "headless Chromium is needed for the widget browser tests: "
            "apt-get install -y chromium (Debian's package, /usr/bin/chromium)"
        )
    return path


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
    body = "\n".join(w._repr_mimebundle_()["text/html"] for w in (first, second))
    path = tmp_path / "widget.html"
    path.write_text(
        '<!doctype html><html><head><meta charset="utf-8"><title>t</title></head>'
        f"<body>{body}</body></html>",
        encoding="utf-8",
    )
    return path.as_uri(), first


def test_dump_dom_renders_cells_and_name(tmp_path, monkeypatch):
    url, _ = _page(tmp_path, monkeypatch)
    with tempfile.TemporaryDirectory() as profile:
        run = subprocess.run(
            [
                _chromium(),
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
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the browser test needs playwright: pip install playwright==1.65.2")
    url, first = _page(tmp_path, monkeypatch)
    chromium = _chromium()
    requests: list[str] = []
    blocked: list[str] = []
    errors: list[str] = []

    def route(r):
        requests.append(r.request.url)
        if r.request.url.split(":", 1)[0] in ("file", "blob", "data"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=FLAGS[1:])
        try:
            page = browser.new_page()
            page.route("**/*", route)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on(
                "console",
                lambda m: errors.append(m.text) if m.type == "error" else None,
            )
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
            missing = page.eval_on_selector_all(
                "input, button, select, textarea, [tabindex]",
                "els => els.filter(e => !e.hasAttribute('data-lm-suppress-shortcuts'))"
                ".map(e => e.outerHTML)",
            )
            assert missing == []
            # a single-matrix widget hides the slider
            assert not page.locator(".cw-hm").nth(1).locator("input").is_visible()
        finally:
            browser.close()
    assert blocked == [], f"requests left the machine: {blocked}"
    assert all(re.match(r"(file|blob|data):", u) for u in requests)
    assert errors == []
