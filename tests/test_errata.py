"""The errata page and the "In some lecture notes" boxes: one style, every box listed.

A flagged slip is a MyST admonition titled exactly "In some lecture notes", with
``:class: lecture-slip`` and ``:name: slip-...``; ``book/errata.md`` links each one once with
``{ref}`text <slip-...>```. The -W book build then fails on a link that does not resolve."""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TITLE = "In some lecture notes"
BOX = re.compile(
    r"^```\{admonition\}[ \t]*(?P<title>[^\n]*)\n(?P<options>(?::[^\n]*\n)*)", re.M
)
REF = re.compile(r"\{ref\}`[^`<]*<(slip-[^>]+)>`")


def prose() -> dict[str, str]:
    """Markdown of every chapter cell and book page, by a name for messages."""
    texts = {
        p.name: p.read_text(encoding="utf-8") for p in (ROOT / "book").glob("*.md")
    }
    for path in sorted(ROOT.glob("notebooks/[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        texts[path.name] = "\n\n".join(
            "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
        )
    return texts


def boxes() -> list[tuple[str, str, dict[str, str]]]:
    """(page, title, options) of every admonition of the course."""
    found = []
    for page, text in prose().items():
        for m in BOX.finditer(text):
            options = dict(
                re.match(r":(\w+):\s*(.*)", line).groups()
                for line in m["options"].splitlines()
            )
            found.append((page, m["title"].strip(), options))
    return found


def slips() -> dict[str, str]:
    """slip name -> page, for every box of class lecture-slip."""
    names: dict[str, str] = {}
    for page, title, options in boxes():
        if "lecture-slip" not in options.get("class", "").split():
            continue
        assert title == TITLE, f"{page}: a lecture-slip box is titled {title!r}"
        name = options.get("name", "")
        assert name.startswith("slip-"), (
            f"{page}: lecture-slip box without :name: slip-..."
        )
        assert name not in names, f"{name} is used twice ({names[name]}, {page})"
        names[name] = page
    return names


def test_every_box_about_lecture_notes_has_the_one_style():
    for page, title, options in boxes():
        if "lecture notes" in title.lower() or "lecture material" in title.lower():
            assert title == TITLE and "lecture-slip" in options.get("class", ""), (
                f"{page}: box {title!r} should be titled {TITLE!r} with :class: lecture-slip"
            )


def test_every_slip_is_listed_once_on_the_errata_page_and_every_link_has_a_box():
    names = slips()
    errata = (ROOT / "book" / "errata.md").read_text(encoding="utf-8")
    links = REF.findall(errata)
    assert len(names) >= 3
    assert sorted(set(links)) == sorted(links), "a slip is listed twice"
    assert not set(names) - set(links), (
        f"not on book/errata.md: {set(names) - set(links)}"
    )
    assert not set(links) - set(names), f"no box for: {set(links) - set(names)}"


def test_the_errata_page_is_in_the_table_of_contents():
    assert "file: book/errata" in (ROOT / "_toc.yml").read_text(encoding="utf-8")
