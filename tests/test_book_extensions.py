"""tools/book_extensions.py: each page keeps each script once (the THEBE_JS_URL error)."""

import importlib.util
from pathlib import Path

from sphinx.builders.html._assets import _JavaScript

PATH = Path(__file__).resolve().parents[1] / "tools" / "book_extensions.py"
spec = importlib.util.spec_from_file_location("book_extensions", PATH)
book_extensions = importlib.util.module_from_spec(spec)
spec.loader.exec_module(book_extensions)


def test_duplicate_inline_scripts_are_kept_once_at_their_first_place():
    thebe = 'const THEBE_JS_URL = "x"'
    scripts = [
        _JavaScript("_static/a.js", priority=200),
        _JavaScript(None, body=thebe, priority=500),
        _JavaScript("_static/b.js", priority=500),
        _JavaScript("", body=thebe, priority=800),
        _JavaScript("", body="var other = 1", priority=800),
    ]
    context = {"script_files": scripts}
    book_extensions.dedupe_scripts(None, "page", "page.html", context, None)
    kept = context["script_files"]
    assert [s.attributes.get("body") for s in kept].count(thebe) == 1
    assert [s.filename or "" for s in kept] == ["_static/a.js", "", "_static/b.js", ""]
    assert kept[1].priority == 500


def test_pages_without_scripts_are_left_alone():
    context = {}
    book_extensions.dedupe_scripts(None, "page", "page.html", context, None)
    assert context == {}
