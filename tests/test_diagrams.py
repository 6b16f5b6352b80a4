"""The book's diagrams (course_lib/diagrams): each committed SVG is what its drawing writes, each
registered diagram is on a chapter's page as a figure of class ``diagram`` with its alt text,
and the canvas keeps a diagram within the text column and its text legible."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from course_lib import diagrams
from course_lib.diagrams.canvas import MAX_WIDTH, MIN_FONT_PT, Canvas

ROOT = Path(__file__).resolve().parents[1]
FIGURE = re.compile(
    r"^```\{figure\} \.\./book/diagrams/(?P<name>[\w-]+)\.svg\n(?P<options>(?::\w+:.*\n)+)",
    re.M,
)


def placed() -> dict[str, list[tuple[str, dict[str, str]]]]:
    """Each diagram figure in the chapters: name -> [(chapter, its options)]."""
    found: dict[str, list] = {}
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md")):
        for m in FIGURE.finditer(path.read_text(encoding="utf-8")):
            options = dict(re.findall(r"^:(\w+): (.*)$", m["options"], re.M))
            found.setdefault(m["name"], []).append((path.name, options))
    return found


def test_every_committed_svg_is_its_drawing():
    assert diagrams.write_all(check=True) == [], (
        "run `make diagrams` and commit the SVGs"
    )
    drawn = {f"{name}.svg" for name in diagrams.load_all()}
    on_disk = {p.name for p in (ROOT / "book" / "diagrams").glob("*.svg")}
    assert on_disk == drawn, f"SVGs with no drawing: {sorted(on_disk - drawn)}"


def test_every_diagram_is_on_a_page_as_a_diagram_figure_with_its_alt_text():
    figures = placed()
    for name, entry in diagrams.load_all().items():
        assert name in figures, f"{name}.svg is on no chapter's page"
        for chapter, options in figures[name]:
            assert options.get("class") == "diagram", (chapter, name, options)
            assert options.get("alt") == entry.alt, (chapter, name, "alt text")
    assert set(figures) <= set(diagrams.DIAGRAMS), "a figure of a diagram not drawn"


def test_the_canvas_keeps_diagrams_in_the_column_and_their_text_legible():
    with pytest.raises(ValueError, match="units wide"):
        Canvas(MAX_WIDTH + 0.1, 2)
    canvas = Canvas(4, 2)
    with pytest.raises(ValueError, match="does not read"):
        canvas.text((1, 1), "tiny", size=MIN_FONT_PT - 1)
    with pytest.raises(ValueError, match="needs alt text"):
        diagrams.diagram("nameless", alt=" ")(lambda: canvas)


def _sketch() -> Canvas:
    canvas = Canvas(6, 3, title="a cell")
    h = canvas.box((1, 1.2), "$h_{t-1}$")
    gate = canvas.op((3, 1.2), r"$\sigma$")
    canvas.arrow(h, gate, "$W_f$")
    canvas.frame((2.2, 0.4), 3.4, 1.8, "LSTM")
    canvas.line([(3, 1.5), (3, 2.4)])
    return canvas


def test_a_drawing_is_the_same_svg_every_time():
    first, second = _sketch().svg(), _sketch().svg()
    assert first == second and first.startswith("<?xml")
    assert "<dc:date>" not in first and 'width="237.6pt"' in first  # 6 units of 0.55 in
