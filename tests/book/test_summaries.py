"""A chapter's summary states only what its sections showed (run by `make book-check`).

Every key a summary glues must be one its chapter recorded in this build. A summary that
states a finding (a recorded comparison's verdict, or any other glued string or truth value)
restates what a section already said, so the same key is glued above the summary too, and the
cell that records it asserts it (book/writing.md, "Prose that holds in every profile"); a
value recorded as an example (one draw shown) is no finding and stays out of the summary.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from course_lib.results import findings

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "_build" / "results"
SUMMARY = re.compile(r"^## (Summary|What to take away)", re.M)
GLUE = re.compile(r"\{glue:text\}`(ch\d\d)_([a-z0-9_]+)")
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _sections(path: Path) -> tuple[list[dict], list[dict], list[dict]]:
    """The chapter's cells before its summary, the summary's cells, and the code cells."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = ["".join(c["source"]) for c in cells]
    start = next(i for i, t in enumerate(text) if SUMMARY.search(t))
    end = next(
        (
            i
            for i in range(start + 1, len(cells))
            if cells[i]["cell_type"] == "markdown" and text[i].startswith("## ")
        ),
        len(cells),
    )
    code = [t for c, t in zip(cells, text) if c["cell_type"] == "code"]
    prose = [t for c, t in zip(cells, text) if c["cell_type"] == "markdown"]
    before = [t for c, t in zip(cells[:start], text) if c["cell_type"] == "markdown"]
    summary = [t for t in text[start:end] if t in prose]
    return before, summary, code


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_summary_states_only_what_its_sections_showed(path):
    chapter = f"ch{path.name[:2]}"
    results_file = RESULTS / f"{chapter}.json"
    if not results_file.is_file():
        pytest.fail(f"{results_file} is missing: run `make book-check` first")
    results = json.loads(results_file.read_text(encoding="utf-8"))
    before, summary, code = _sections(path)
    above = {name for text in before for _, name in GLUE.findall(text)}
    problems = []
    for text in summary:
        for owner, name in GLUE.findall(text):
            if owner != chapter or name not in results:
                problems.append(
                    f"{owner}_{name}: not recorded by {chapter} in this build"
                )
            elif name in results.get("_examples", []):
                problems.append(f"{chapter}_{name}: an example, stated as a finding")
            elif name in findings(results):
                recording = [c for c in code if f'"{name}"' in c]
                if name not in above:
                    problems.append(f"{chapter}_{name}: a verdict no section states")
                if not any("assert" in c for c in recording):
                    problems.append(
                        f"{chapter}_{name}: recorded where nothing asserts it"
                    )
    assert not problems, f"{path.name}'s summary:\n" + "\n".join(problems)
