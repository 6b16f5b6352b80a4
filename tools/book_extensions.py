"""Sphinx fixes for the book, loaded through ``sphinx.local_extensions`` in ``_config.yml``.

``dedupe_scripts``: sphinx-thebe and sphinx-togglebutton add their inline scripts twice (file
name None, then ""), and a page threw "Identifier 'THEBE_JS_URL' has already been declared".
Each script (same file, attributes and body) is kept once, at its earliest position.
"""

from typing import Any


def dedupe_scripts(app: Any, pagename: str, templatename: str, context: dict, doctree):
    """Keep each of a page's scripts once, at its earliest position."""
    scripts, seen, kept = context.get("script_files"), set(), []
    for js in sorted(scripts or [], key=lambda s: getattr(s, "priority", 500)):
        attributes = getattr(js, "attributes", {}) or {}
        key = (getattr(js, "filename", None) or "", tuple(sorted(attributes.items())))
        if key not in seen:
            seen.add(key)
            kept.append(js)
    if scripts:
        context["script_files"] = kept


def setup(app: Any) -> dict[str, bool]:
    app.connect("html-page-context", dedupe_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
