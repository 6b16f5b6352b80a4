"""Sphinx fixes for the book, loaded through ``sphinx.local_extensions`` in ``_config.yml``.

``dedupe_scripts``: sphinx-thebe and sphinx-togglebutton add their inline configuration
scripts (``const THEBE_JS_URL = ...``, ``var togglebuttonSelector = ...``) to the builder twice,
once with the file name None and once with "", which Sphinx does not see as equal; so every
page declared ``THEBE_JS_URL`` twice and threw "Identifier 'THEBE_JS_URL' has already been
declared". Each script (same file, same attributes and body) is kept once per page, at its
earliest position.

``strip_pragmas``: a notebook's code keeps the comments its tools read (``# fmt: skip`` keeps a
short call on the lines the author chose, ``# noqa: E731`` allows a lambda); the page shows the
code without them. Only the rendered cell inputs change, never the notebook.
"""

from __future__ import annotations

import re
from typing import Any

# A tool's comment ending a line: fmt skip/off/on, a noqa with its codes, a type-ignore.
PRAGMA = re.compile(
    r"[ \t]*#[ \t]*(?:fmt:[ \t]*(?:skip|off|on)"
    r"|noqa(?::[ \t]*[A-Z]+[0-9]+(?:[, \t]+[A-Z]+[0-9]+)*)?"
    r"|type:[ \t]*ignore(?:\[[\w, -]+\])?)[ \t]*$"
)


def strip_pragma_comments(code: str) -> str:
    """``code`` without a tool's comment at the end of any line (a line of only that goes)."""
    lines = []
    for line in code.split("\n"):
        bare = PRAGMA.sub("", line)
        if bare.strip() or not line.strip():
            lines.append(bare)
    return "\n".join(lines)


def strip_pragmas(app: Any, doctree: Any) -> None:
    """Drop the tools' comments from every code cell's input on the page."""
    from docutils import nodes

    for block in doctree.findall(nodes.literal_block):
        parent = block.parent
        if parent is None or "cell_input" not in parent.get("classes", []):
            continue
        text = block.astext()
        bare = strip_pragma_comments(text)
        if bare != text:
            block.children = [nodes.Text(bare)]
            block.rawsource = bare


def dedupe_scripts(
    app: Any, pagename: str, templatename: str, context: dict, doctree: Any
):
    scripts = context.get("script_files")
    if not scripts:
        return None
    seen: set = set()
    kept = []
    for js in sorted(scripts, key=lambda s: getattr(s, "priority", 500)):
        attributes = getattr(js, "attributes", {}) or {}
        key = (getattr(js, "filename", None) or "", tuple(sorted(attributes.items())))
        if key not in seen:
            seen.add(key)
            kept.append(js)
    context["script_files"] = kept
    return None


def setup(app: Any) -> dict[str, bool]:
    app.connect("html-page-context", dedupe_scripts, priority=900)
    app.connect("doctree-read", strip_pragmas)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
