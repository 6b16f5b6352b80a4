"""The front page (book/intro.md) and README.md: their chapter tables name only code that exists,
and the front page's stays narrow enough for the text column.

The table's ``course_lib`` column names the packages a chapter builds (``backprop``, not an
``autograd`` that never existed); every ``course_lib.X`` the page names elsewhere exists too.
A row of at most 110 characters of text, in 4 columns, fits the 736-px column of the page at
1280 px without a scroll bar (measured in Chromium); ``tests/book/test_pages_browser.py``
checks the built page itself.
"""

from __future__ import annotations

import re
from pathlib import Path

import course_lib

ROOT = Path(__file__).resolve().parents[1]
INTRO = ROOT / "book" / "intro.md"
PACKAGE = Path(course_lib.__file__).parent
MAX_COLUMNS, MAX_ROW_TEXT = 4, 110


def table(path: Path, heading: str | None = None) -> list[list[str]]:
    """The rows of the first table in ``path`` (after ``heading``), header first, as lists
    of cell sources."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = lines.index(heading) if heading else 0
    first = next(i for i in range(start, len(lines)) if lines[i].startswith("|"))
    block = []
    for line in lines[first:]:
        if not line.startswith("|"):
            break
        block.append(line)
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in block]
    return [rows[0], *rows[2:]]  # without the | --- | line


def chapter_table() -> list[list[str]]:
    """The front page's table under "## Chapters"."""
    return table(INTRO, "## Chapters")


def exists(name: str) -> bool:
    """Whether ``course_lib.<name>`` is a package or a module of this checkout."""
    path = PACKAGE.joinpath(*name.split("."))
    return (path / "__init__.py").is_file() or path.with_suffix(".py").is_file()


def rendered(cell: str) -> str:
    """A cell's text as the page shows it: {doc}`Title <path>` is Title, no markup."""
    cell = re.sub(r"\{doc\}`([^<`]+?)\s*<[^>`]+>`", r"\1", cell)
    return cell.replace("`", "").replace("*", "")


def test_every_package_the_chapter_table_names_exists():
    header, *rows = chapter_table()
    column = header.index("`course_lib`")
    assert len(rows) >= 10
    missing = []
    for row in rows:
        names = re.findall(r"`([^`]+)`", row[column])
        assert names, f"row {row[0]!r} names no package"
        missing += [f"{row[0]}: {n}" for n in names if not exists(n)]
    assert not missing, f"the front page names packages course_lib/ lacks: {missing}"


def test_every_course_lib_name_on_the_front_page_exists():
    text = INTRO.read_text(encoding="utf-8")
    names = set(re.findall(r"`course_lib\.([\w.]+)`", text))
    assert names  # the page says where the widgets, exercises and readers are
    assert not [n for n in sorted(names) if not exists(n)]


def test_the_chapter_table_fits_the_text_column():
    header, *rows = chapter_table()
    assert len(header) <= MAX_COLUMNS, f"{len(header)} columns: {header}"
    long = {
        row[0]: n
        for row in rows
        if (n := sum(len(rendered(c)) for c in row)) > MAX_ROW_TEXT
    }
    assert not long, f"rows over {MAX_ROW_TEXT} characters of text: {long}"


def test_every_package_the_readme_table_names_exists():
    """README.md's chapter table, the front page's twin: ``name/`` or ``name.py`` cells."""
    header, *rows = table(ROOT / "README.md")
    column = header.index("`course_lib`")
    named = [n for r in rows for n in re.findall(r"`([\w/.]+)`", r[column])]
    assert len(rows) >= 10 and len(named) >= len(rows)
    assert not [n for n in named if not (PACKAGE / n).exists()], named
