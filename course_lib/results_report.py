"""The Results page: one table per chapter from the recorded results (``course_lib.results``).

``results_markdown(root)`` reads the chapters listed in ``_toc.yml`` and every chapter with a
results file, and the rows of ``book/anchors.yml`` (the published anchor, its setting and its
citation, and the target, for each headline result), and returns the page's MyST markdown: per
chapter, its profile and device, and for each row our number, or *missing* when the chapter did
not record it. Nothing is ever filled in: a damaged results file is named on the page,
with the fix, and its chapter's numbers are shown missing. Temporary files of an
interrupted ``record`` are never read (``results.recorded_chapters`` skips them). Used by
``results.md``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from course_lib import results

MISSING = "*missing*"


def toc_chapters(root: Path) -> dict[str, Path]:
    """``{"ch01": notebooks/01_....ipynb, ...}`` for every chapter notebook in ``_toc.yml``."""
    toc = yaml.safe_load((Path(root) / "_toc.yml").read_text(encoding="utf-8"))
    found: dict[str, Path] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            file = node.get("file", "")
            m = re.fullmatch(r"notebooks/(\d\d)_\w+", str(file))
            if m:
                found[f"ch{m.group(1)}"] = Path(root) / f"{file}.ipynb"
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return found


def chapter_title(notebook: Path | None, chapter: str) -> str:
    """The notebook's first heading ("1. Word vectors"), or "Chapter N" without one."""
    if notebook is not None and notebook.is_file():
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            m = re.match(r"#\s+(.+)", "".join(cell["source"]).strip())
            if cell["cell_type"] == "markdown" and m:
                return m.group(1).strip()
    return f"Chapter {int(chapter[2:])}" if chapter[2:].isdigit() else chapter


def lookup(data: dict[str, Any], key: str) -> Any:
    """``data[key]``, following dots into nested dicts; None when absent."""
    value: Any = data
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def format_value(value: Any, fmt: str | None = None) -> str:
    """A recorded value for the table: numbers with ``fmt``; None is *missing*."""
    if value is None:
        return MISSING
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return format(value, fmt) if fmt else f"{value:.4g}"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def anchor(row: dict) -> str:
    """The anchor cell: the value and its source, a citation or the script that measured it."""
    value = row.get("published", "none")
    if row.get("cite"):
        return f"{value} {{cite:p}}`{row['cite']}`"
    if row.get("measured"):
        return f"{value} (measured by `{row['measured']}`)"
    return value


def coverage(data: dict[str, Any], row: dict) -> str:
    """The setting's last words where a row names them: how many test items each side scored.

    ``covered``: the results key of our count; ``anchor_covered``: the anchor's; ``items``: what
    they count (default "items"). Our count is read from this run, so it follows the profile.
    """
    if "covered" not in row:
        return ""
    n = lookup(data, row["covered"])
    items = row.get("items", "items")
    ours = f"{n:,}" if isinstance(n, int) and not isinstance(n, bool) else MISSING
    text = f" Ours scored on {ours} {items}"
    if "anchor_covered" in row:
        m = row["anchor_covered"]
        text += f", the anchor on {m:,}"
        if ours != MISSING:
            text += " (the same count)" if n == m else " (not the same items)"
    return text + "."


def chapter_table(data: dict[str, Any], rows: list[dict] | None) -> str:
    """The markdown table of one chapter: declared rows, or every scalar it recorded."""
    if rows is None:
        rows = [
            {"key": k, "label": k}
            for k, v in sorted(data.items())
            if isinstance(v, (int, float, str)) and not isinstance(v, bool)
        ]
    lines = [
        "| result | ours | anchor | setting of the anchor |",
        "| --- | --- | --- | --- |",
    ]
    for row in rows:
        if "key" not in row:
            raise ValueError(f"an anchors row needs a key, got {row!r}")
        ours = format_value(lookup(data, row["key"]), row.get("fmt"))
        cells = [
            row.get("label", row["key"]),
            ours,
            anchor(row),
            row.get("setting", "") + coverage(data, row),
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def find_root(start: Path | str | None = None) -> Path:
    """The book's root: the nearest folder at or above ``start`` (default: here) with _toc.yml."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_toc.yml").is_file():
            return folder
    raise ValueError(f"no _toc.yml in {here} or above: run this from inside the book")


def results_markdown(root: Path | str, anchors_file: Path | str | None = None) -> str:
    """The Results page's body (MyST markdown), over the chapters of the toc and of the results."""
    root = Path(root)
    anchors_path = Path(anchors_file) if anchors_file else root / "book" / "anchors.yml"
    anchors = yaml.safe_load(anchors_path.read_text(encoding="utf-8")) or {}
    notebooks = toc_chapters(root)
    chapters = sorted(set(notebooks) | set(results.recorded_chapters()))
    parts = []
    for chapter in chapters:
        try:
            data, run, damaged = results.load(chapter), results.run_info(chapter), ""
        except results.CorruptResultsError as err:  # shown on the page, not filled in
            data, run = {}, None
            damaged = (
                str(err).replace("\n", " ").replace("_", "\\_").replace("*", "\\*")
            )
        title = chapter_title(notebooks.get(chapter), chapter)
        if damaged:
            how = f"Its results could not be read: every number below is missing. {damaged}"
        elif not data:
            how = "No results were recorded: every number below is missing."
        elif run:
            how = f"Run in the `{run['profile']}` profile on `{run['device']}`."
        else:
            how = "The run did not record its profile and device."
        table = chapter_table(data, anchors.get(chapter))
        parts.append(f"**{title}** ({chapter}). {how}\n\n{table}")
    return "\n\n".join(parts)
