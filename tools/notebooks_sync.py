"""Write each chapter's notebook from its text source, and check that the two agree.

    python tools/notebooks_sync.py [NN ...]    # make notebooks-sync: format, then write
    python tools/notebooks_sync.py --check     # make test: exit 1 where they disagree

Authors edit ``notebooks/NN_name.md`` (MyST markdown), which the book is built from; Colab and
nbval run ``notebooks/NN_name.ipynb``, written from it: the same cells, no outputs, each cell's
id made from its kind and source (an edit changes only the ids of the cells it touches).
Writing formats the code with ruff (``notebooks/ruff.toml``) first, in the ``.md`` too.
"""

import argparse
import hashlib
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import jupytext
import nbformat
from notebook_run import chapters, read_notebook, write_whole  # tools/

ROOT = Path(__file__).resolve().parents[1]
CELL_FIELDS = ("cell_type", "id", "source", "metadata")  # what a notebook's cell keeps


def sources(root: Path = ROOT, wanted: list[str] | None = None) -> list[Path]:
    """The chapters' text sources, ``notebooks/NN_*.md`` (those numbered ``wanted``)."""
    return chapters(root, wanted, ".md")


def write_source(source: Path, text: nbformat.NotebookNode) -> None:
    """Write ``text`` (as ``read_notebook`` read it, edited) back to ``source``."""
    written = jupytext.writes(text, fmt="md:myst")  # without the version jupytext adds:
    write_whole(source, re.sub(r"(?m)^ +jupytext_version: .*\n", "", written))


def notebook(source: Path) -> nbformat.NotebookNode:
    """The ``.ipynb`` that ``source`` (a MyST markdown notebook) stands for."""
    text, nb, seen = read_notebook(source), nbformat.v4.new_notebook(), Counter()
    kernel = text.metadata["kernelspec"]
    nb.metadata = {"kernelspec": kernel, "language_info": {"name": "python"}}
    for cell in text.cells:
        kind = cell.cell_type
        if kind not in ("code", "markdown"):
            raise SystemExit(f"{source.name}: a {kind} cell (code or markdown)")
        key = f"{kind}\n{cell.source}"
        seen[key] += 1
        cell_id = hashlib.sha256(f"{key}\n{seen[key]}".encode()).hexdigest()[:8]
        new = getattr(nbformat.v4, f"new_{kind}_cell")
        nb.cells.append(new(cell.source, metadata=dict(cell.metadata), id=cell_id))
    return nb


def formatted(source: Path, nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """``nb`` with its code cells as ``ruff format`` writes them (the chapter's settings)."""
    ipynb, text = str(source.with_suffix(".ipynb")), nbformat.writes(nb)
    ruff = [sys.executable, "-m", "ruff", "format", "--stdin-filename", ipynb, "-"]
    done = subprocess.run(
        ruff, input=text, capture_output=True, text=True, cwd=source.parent
    )
    if done.returncode:
        raise SystemExit(f"ruff could not format {source.name}:\n{done.stderr}")
    return nbformat.reads(done.stdout, as_version=4)


def sync(source: Path) -> list[str]:
    """Format ``source``'s code, write it back if it changed, and write its notebook;
    returns the names of the files written."""
    nb, written = notebook(source), []
    pretty = formatted(source, nb)
    if [c.source for c in pretty.cells] != [c.source for c in nb.cells]:
        edited = read_notebook(source)
        for cell, done in zip(edited.cells, pretty.cells, strict=True):
            cell.source = done.source
        write_source(source, edited)
        written.append(source.name)
        nb = notebook(source)
    path, text = source.with_suffix(".ipynb"), nbformat.writes(nb) + "\n"
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        write_whole(path, text)
        written.append(path.name)
    return written


def differences(source: Path) -> list[str]:
    """Where the committed notebook differs from the one ``source`` stands for."""
    path = source.with_suffix(".ipynb")
    name = path.name
    if not path.is_file():
        return [f"{name} is missing"]
    want, have = notebook(source), nbformat.read(path, as_version=4)
    found = []
    if want.metadata != have.metadata:
        found.append(f"{name}: notebook metadata {dict(have.metadata)}")
    if len(want.cells) != len(have.cells):
        found.append(
            f"{name}: {len(have.cells)} cells, the source has {len(want.cells)}"
        )
    for i, (a, b) in enumerate(zip(want.cells, have.cells)):
        fields = [f for f in CELL_FIELDS if a.get(f) != b.get(f)]
        if fields:
            found.append(f"{name} cell {i}: its {fields[0]} differs from the source's")
        if b.get("outputs") or b.get("execution_count"):
            found.append(f"{name} cell {i}: has outputs (commit it without them)")
    if not found and path.read_text(encoding="utf-8") != nbformat.writes(want) + "\n":
        found.append(f"{name}: laid out otherwise than the sync writes it")
    return found


def orphans(root: Path = ROOT) -> list[str]:
    """Chapter notebooks with no text source beside them."""
    return [
        f"{p.name} has no {p.with_suffix('.md').name}"
        for p in sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))
        if not p.with_suffix(".md").is_file()
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", help="chapter numbers (default: all)")
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args(argv)
    paths = sources(ROOT, args.chapters)
    if args.check:
        found = orphans() + [line for p in paths for line in differences(p)]
        if found:
            print(*found, sep="\n")
            print("The notebooks differ from their sources: run `make notebooks-sync`.")
        return 1 if found else 0
    for path in paths:
        for name in sync(path):
            print(f"wrote notebooks/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
