"""Every chapter's figures, diagrams, widgets and tables read in the light and the dark theme.

The book has a theme switch (pydata-sphinx-theme; its default mode, "auto", follows the
browser's colour scheme). Each chapter page is opened at 1280 px in each theme, and a shot of
each figure, diagram, widget and HTML table goes to ``_build/screenshots/themes/<chapter>/``
(the whole dark page to ``_build/screenshots/<chapter>-desktop-dark.jpg``): the shots a person
looks at. What the test measures, on the pixels as drawn (``theme_metrics.py``, beside this
file): each text of a widget or table stands out from the ground around it, and each image's
ink from its ground, by a WCAG contrast ratio of 3 at least. Dark ink on a transparent image
over the dark page, a widget's label in the theme's light text on its white card, or a muted
caption on the theme's grey box all fall below it.

Run by ``make book-check`` after the build.
"""

from __future__ import annotations

import numpy as np
import page_metrics
import pytest
import theme_metrics
from widget_browser import BOOK_HTML

HTML = BOOK_HTML


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("name", page_metrics.chapters())
def test_a_chapter_reads_in_each_theme(name, theme, browser):
    if not (HTML / f"{name}.html").is_file():
        pytest.fail(
            f"{name} is not built: run `make book-check` (or `make book`) first"
        )
    m = theme_metrics.measure(HTML, name, browser.page, theme)
    assert m.active == theme, f"the page shows the {m.active!r} theme, not {theme!r}"
    assert m.shots, f"{name}: nothing to shoot"
    assert not m.low_contrast, (
        f"{name} in the {theme} theme, contrast under {theme_metrics.MIN_CONTRAST}:\n  "
        + "\n  ".join(m.low_contrast[:20])
    )
    assert browser.blocked == [], (
        f"requests that would leave the machine: {browser.blocked}"
    )


@pytest.mark.parametrize("name", page_metrics.chapters())
def test_a_widget_is_the_same_card_in_both_themes(name, browser):
    """A widget draws its own white card: the dark theme must not reach into it (a frame
    and padding on its images, a dimming filter, the theme's text colour)."""
    if not (HTML / f"{name}.html").is_file():
        pytest.fail(
            f"{name} is not built: run `make book-check` (or `make book`) first"
        )
    changed = [
        f"{key}: {diff:.1f}"
        for key, diff in theme_metrics.widget_differences(HTML, name, browser.page)
        if diff > 1.0
    ]
    assert not changed, f"{name}: widgets that the dark theme changes: {changed}"


def test_the_contrast_measure():
    """Black on white is 21; dark grey ink on the dark theme's ground is under 3."""
    page = np.full((20, 40, 3), 255, dtype=np.uint8)
    page[8:12, 5:35] = 0  # a stroke of ink
    assert theme_metrics.contrast(page) == pytest.approx(21.0)
    dark = np.full((20, 40, 3), 18, dtype=np.uint8)  # the dark theme's page
    dark[8:12, 5:35] = 60  # dark grey ink
    assert theme_metrics.contrast(dark) < theme_metrics.MIN_CONTRAST
    assert theme_metrics.contrast(np.zeros((0, 0, 3), dtype=np.uint8)) == 21.0
