"""What the tools share: the chapters, reading a notebook, writing a file whole; and a run of a
chapter with its own environment that goes on past failing cells (tools/gpu_check.py,
tools/seeds.py), with the errors it met: a chapter's own ``assert`` or code that could not run.
"""

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def chapters(root: Path, wanted: list[str] | None, suffix=".ipynb") -> list[Path]:
    """The chapters ``notebooks/NN_*<suffix>`` numbered in ``wanted`` (none or ``all``: all)."""
    paths = sorted((root / "notebooks").glob(f"[0-9][0-9]_*{suffix}"))
    if wanted and wanted != ["all"]:
        numbers = {w.zfill(2) for w in wanted}
        paths = [p for p in paths if p.name[:2] in numbers]
        if len(paths) != len(numbers):
            raise SystemExit(f"no chapter {sorted(numbers)} in {root / 'notebooks'}")
    return paths


def read_notebook(path: Path):
    """The notebook at ``path``: an ``.ipynb``, or a MyST markdown notebook (``.md``)."""
    if path.suffix == ".md":
        return jupytext.reads(path.read_text(encoding="utf-8"), fmt="md:myst")
    return nbformat.read(path, as_version=4)


def write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (a file beside it, then renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


@dataclass(frozen=True)
class CellError:
    """An error output of cell ``index``: its name, message, and the failing line of the cell."""

    index: int
    ename: str
    evalue: str
    line: str  # the cell's line the traceback points at ('' when it does not say)
    own_assert: bool  # an AssertionError raised by a line of the chapter's own cell

    def __str__(self) -> str:
        where = f"cell {self.index}" + (f": {self.line}" if self.line else "")
        message = f": {self.evalue[:200]}" if self.evalue else ""
        return f"{where} ({self.ename}{message})"


def execute(nb, path: Path, env: dict, timeout: int) -> tuple[float, str | None]:
    """Run every cell of ``nb`` (from ``path``), past failing ones, in ``path``'s folder with
    ``env`` over this environment: the seconds, and what stopped it (a dead kernel, a timeout)."""
    folder = {"metadata": {"path": str(path.parent)}}
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", allow_errors=True, resources=folder
    )
    start, stopped = time.perf_counter(), None
    try:
        client.execute(env={**os.environ, **env})
    except Exception as err:  # noqa: BLE001 (a dead kernel, a timeout: a failure to report)
        stopped = f"{type(err).__name__}: {str(err)[-300:]}"
    return time.perf_counter() - start, stopped


def _failing_line(source: str, traceback: list[str]) -> tuple[str, bool]:
    """The cell's line an error's traceback points at, and whether the last frame is the cell."""
    plain = [ANSI.sub("", item) for item in traceback]
    frames = [i for i, item in enumerate(plain) if "File " in item or "Cell In" in item]
    if not frames or "Cell In" not in plain[frames[-1]]:
        return "", False
    marked = re.search(r"(?m)^-+>\s*(\d+)", "\n".join(plain[frames[-1] :]))
    lines = ["", *source.splitlines()]  # numbered from 1
    number = int(marked[1]) if marked else 0
    return (lines[number].strip() if number < len(lines) else ""), True


def cell_errors(nb) -> list[CellError]:
    """Every error output of ``nb``'s cells, in order."""
    found = []
    for index, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                line, in_cell = _failing_line(cell.source, out.get("traceback", []))
                ename, evalue = out.get("ename", ""), out.get("evalue", "")
                own = ename == "AssertionError" and in_cell
                found.append(CellError(index, ename, evalue, line, own))
    return found
