"""Execute a chapter with its own environment and keep going past errors: what the gpu check
(tools/gpu_check.py) and the seed check (tools/seeds.py) share.

``execute`` runs every cell (``allow_errors``: a failing cell does not stop the ones after it)
in the notebook's folder, with ``env`` laid over this process's environment for the kernel and
taken off again afterwards; ``cell_errors`` lists what failed, telling a chapter's own
``assert`` apart from code that could not run.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def chapters(
    root: Path, wanted: list[str] | None, suffix: str = ".ipynb"
) -> list[Path]:
    """The chapters ``notebooks/NN_*<suffix>`` numbered in ``wanted`` (all of them for none
    or ``all``); a number with no chapter is an error."""
    paths = sorted((root / "notebooks").glob(f"[0-9][0-9]_*{suffix}"))
    if wanted and wanted != ["all"]:
        numbers = {w.zfill(2) for w in wanted}
        paths = [p for p in paths if p.name[:2] in numbers]
        if len(paths) != len(numbers):
            raise SystemExit(f"no chapter {sorted(numbers)} in {root / 'notebooks'}")
    return paths


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


def execute(
    nb, path: Path, env: dict[str, str], timeout: int
) -> tuple[float, str | None]:
    """Run ``nb`` (read from ``path``) in ``path``'s folder with ``env`` set for its kernel.

    Returns the seconds it took and the error that stopped the run (a dead kernel, a cell over
    ``timeout`` seconds), or None; the cells' own errors stay in their outputs.
    """
    from nbclient import NotebookClient

    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)  # the kernel inherits this process's environment
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    start, stopped = time.perf_counter(), None
    try:
        client.execute()
    except Exception as err:  # noqa: BLE001 (a dead kernel, a timeout: a failure to report)
        stopped = f"{type(err).__name__}: {str(err)[-300:]}"
    finally:
        for name, value in saved.items():  # this process's environment as it was
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return time.perf_counter() - start, stopped


def _failing_line(source: str, traceback: list[str]) -> tuple[str, bool]:
    """The cell's line an error's traceback points at, and whether the last frame is the cell."""
    plain = [ANSI.sub("", line) for line in traceback]
    frames = [line for line in plain if "File " in line or "Cell In" in line]
    in_cell = bool(frames) and "Cell In" in frames[-1]
    if not in_cell:
        return "", False
    block = plain[plain.index(frames[-1]) :]
    marked = [re.match(r"-+>\s*(\d+)", line) for line in "\n".join(block).splitlines()]
    numbers = [int(m.group(1)) for m in marked if m]
    lines = source.splitlines()
    if numbers and 0 < numbers[0] <= len(lines):
        return lines[numbers[0] - 1].strip(), True
    return "", True


def cell_errors(nb) -> list[CellError]:
    """Every error output of ``nb``'s cells, in order."""
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") != "error":
                continue
            line, in_cell = _failing_line(cell.source, output.get("traceback", []))
            ename = output.get("ename", "")
            found.append(
                CellError(
                    index,
                    ename,
                    output.get("evalue", ""),
                    line,
                    ename == "AssertionError" and in_cell,
                )
            )
    return found
