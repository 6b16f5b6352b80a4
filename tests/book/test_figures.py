"""Every output figure of every chapter page reads at 1280 px (book/writing.md, "Figures").

On the built book, in headless Chromium: each output image is shown at its natural size (not
shrunk to the column), has an axis label on every axis with tick labels, no text under 9 px
at the size it is shown, no colliding tick labels, no axes over another's labels, no colour
scale more than half beyond its data, and a legend where its series' colours differ; each
widget's text is between 9 px and the body's size. The measurements are
``figure_metrics.py``'s (beside this file), from the record the book's kernels keep beside
each figure (``course_lib/figure_record.py``); ``python tests/book/figure_metrics.py`` lists
them for every chapter.

Run by ``make book-check`` after the build.
"""

from __future__ import annotations

import figure_metrics
import matplotlib
import page_metrics
import pytest
from widget_browser import BOOK_HTML

from course_lib.figure_record import describe

HTML = BOOK_HTML


@pytest.mark.parametrize("name", page_metrics.chapters())
def test_every_figure_of_a_chapter_reads(name, browser):
    if not (HTML / f"{name}.html").is_file():
        pytest.fail(
            f"{name} is not built: run `make book-check` (or `make book`) first"
        )
    executed = HTML.parent / "jupyter_execute"
    figures = figure_metrics.measure(HTML, name, browser.page, executed)
    widgets = figure_metrics.widget_text(browser.page, name)
    problems = [f"cell {f.cell} [{f.title}]: {'; '.join(f.problems)}" for f in figures]
    problems = [p for p, f in zip(problems, figures, strict=True) if f.problems]
    problems += [
        f"widget {w.widget}: {'; '.join(w.problems)}" for w in widgets if w.problems
    ]
    assert not problems, f"{name}:\n  " + "\n  ".join(problems)
    assert browser.blocked == [], (
        f"requests that would leave the machine: {browser.blocked}"
    )


def test_the_record_sees_what_a_reader_cannot_read():
    """describe() on a figure with every fault, and on one without."""
    matplotlib.use("agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 3))
    image = a.imshow(np.linspace(0.1, 0.3, 2500).reshape(50, 50), vmin=-1, vmax=1)
    a.set_xticks(range(50))
    fig.colorbar(image, ax=a)
    b.plot([1, 2, 3], [1, 2, 3])
    b.plot([1, 2, 3], [3, 2, 1])
    b.set_yscale("log")
    r = describe(fig)
    assert r["size_in"] == [12.0, 3.0] and r["min_font_pt"] == 7.0  # 10⁰'s script
    assert "panel 2: y axis" in r["unlabelled"] and any(
        "colour bar" in u for u in r["unlabelled"]
    )
    assert (
        r["collisions"] and r["unfitted"] == ["panel 1"] and r["unkeyed"] == ["panel 2"]
    )
    natural, shown = 1200, 736  # a 12-inch figure at 100 dpi, in the 736 px column
    found, px = figure_metrics.problems(r, natural, shown)
    assert px < 9 and any("shrunk to 61%" in p for p in found)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 3))
    ax.plot([1, 2, 3], [1, 2, 3], label="a")
    ax.plot([1, 2, 3], [3, 2, 1], label="b")
    ax.set(xlabel="x (s)", ylabel="y (m)")
    ax.legend()
    r = describe(fig)
    found, px = figure_metrics.problems(r, 600, 600)
    assert found == [] and px == pytest.approx(10 * 100 / 72)
    plt.close(fig)
    assert figure_metrics.problems(None, 600, 600)[0][-1].startswith("no figure record")
