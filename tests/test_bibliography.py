"""book/references.bib: every {cite} of the chapters and pages names an entry, and every entry
has an author, a title and a year (the -W build also fails on an unknown key)."""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIB = (ROOT / "book" / "references.bib").read_text(encoding="utf-8")


def entries() -> dict[str, str]:
    parts = re.split(r"^@\w+\{", BIB, flags=re.M)[1:]
    return {p.split(",", 1)[0].strip(): p for p in parts}


def test_entries_are_complete_and_unique():
    found = entries()
    assert len(found) == len(re.findall(r"^@\w+\{", BIB, flags=re.M)) > 40
    for key, body in found.items():
        for field in ("author", "title", "year"):
            assert re.search(rf"^\s*{field}\s*=", body, re.M), (key, field)


def test_every_citation_names_an_entry():
    sources = [p.read_text(encoding="utf-8") for p in (ROOT / "book").glob("*.md")]
    for path in sorted(ROOT.glob("notebooks/[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        sources += ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    cited = {
        key.strip()
        for s in sources
        for keys in re.findall(r"\{cite(?::\w+)?\}`([^`]+)`", s)
        for key in keys.split(",")
    }
    assert len(cited) > 20
    assert not cited - set(entries())


def test_the_file_parses_with_pybtex_entry_for_entry():
    """A lost closing brace (easy in a merge) swallows the next entry; pybtex, which the
    book's sphinxcontrib-bibtex reads the file with, must see every entry on its own."""
    from pybtex.database import parse_string

    parsed = parse_string(BIB, "bibtex")
    assert sorted(parsed.entries) == sorted(entries())
    for key, entry in parsed.entries.items():
        assert "@" not in entry.fields.get("doi", "") + entry.fields.get("note", ""), (
            key
        )
