"""Every chapter page read as a reader reads it: headless Chromium at 1280 px (book/writing.md).

On the built book: no code block wider than the text column, no shown code cell over 25 lines,
at most 400 shown code lines a chapter, no shown line that only records a number or asserts a
claim, no output that is only a stray value, no words about how the book is built, and every
figure the executed notebook drew on the page, none of them empty. (That widgets render and
react is checked page by page in test_pages_browser.py.) The measurements are
``page_metrics.py``'s (beside this file), which prints them for every chapter.

Run by ``make book-check`` after the build.
"""

from __future__ import annotations

from pathlib import Path

import page_metrics
import pytest
from widget_browser import BOOK_HTML

ROOT = Path(__file__).resolve().parents[2]

HTML = BOOK_HTML


@pytest.mark.parametrize("name", page_metrics.chapters())
def test_a_chapter_page_reads_like_a_book(name, browser):
    if not (HTML / f"{name}.html").is_file():
        pytest.fail(
            f"{name} is not built: run `make book-check` (or `make book`) first"
        )
    m = page_metrics.measure(HTML, name, browser.page, HTML.parent / "jupyter_execute")
    problems = []
    if m.wide_blocks:
        problems.append(f"code blocks wider than the column: {m.wide_blocks[:3]}")
    if m.long_cells:
        problems.append(
            f"shown cells over {page_metrics.MAX_CELL_LINES} lines: {m.long_cells}"
        )
    if m.shown_lines > page_metrics.MAX_PAGE_LINES:
        problems.append(
            f"{m.shown_lines} shown code lines (at most {page_metrics.MAX_PAGE_LINES})"
        )
    if m.record_lines:
        problems.append(f"shown record lines: {m.record_lines[:3]}")
    if m.assert_lines:
        problems.append(f"shown assert lines: {m.assert_lines[:3]}")
    if m.pragma_lines:
        problems.append(f"shown comments for tools: {m.pragma_lines[:3]}")
    if m.stray_outputs:
        problems.append(f"outputs that are only a stray value: {m.stray_outputs[:3]}")
    if m.build_words:
        problems.append(f"words about the build in the text: {m.build_words}")
    if m.figures < m.figures_drawn:
        problems.append(f"{m.figures} figures on the page, {m.figures_drawn} drawn")
    if m.empty_figures:
        problems.append(f"empty figures: {m.empty_figures}")
    assert not problems, f"{name}: " + "; ".join(problems)
    assert browser.blocked == [], (
        f"requests that would leave the machine: {browser.blocked}"
    )


def test_the_measure_sees_folded_cells_and_figures(tmp_path, browser):
    """The measurements on a hand-made page: a folded cell is not shown, a wide one is seen."""
    wide = "x = " + "1 + " * 40 + "1"
    page = tmp_path / "notebooks" / "00_t.html"
    page.parent.mkdir()
    page.write_text(
        '<!doctype html><html><head><meta charset="utf-8"></head><body>'
        '<article class="bd-article" style="width:600px">'
        '<div class="cell"><div class="cell_input"><pre>a = 1\nassert a\nch01("a", a)  # fmt: skip</pre></div>'
        '<div class="cell_output"><div class="output text_plain"><pre>9</pre></div></div></div>'
        '<div class="cell"><details><summary>checks</summary><div class="cell_input">'
        "<pre>assert True\nassert True</pre></div></details></div>"
        f'<div class="cell"><div class="cell_input"><pre>{wide}</pre></div></div>'
        "<p>As the closing note says.</p></article></body></html>",
        encoding="utf-8",
    )
    m = page_metrics.measure(tmp_path, "notebooks/00_t", browser.page, tmp_path)
    assert m.shown_lines == 4
    assert m.assert_lines == ["assert a"]
    assert m.record_lines == m.pragma_lines == ['ch01("a", a)  # fmt: skip']
    assert m.stray_outputs == ["9"]
    assert m.build_words == ["closing note"]
    assert len(m.wide_blocks) == 1 and m.wide_blocks[0].startswith("x = 1 +")
