"""Every folded code cell of a chapter says what it holds (book/writing.md: a descriptive
prompt such as "figure code", "checks: ..." or "solution"), never the theme's generic
"Show the code"."""

from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.md"))
FOLDS = {"hide-input", "hide-cell", "hide-output"}


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_folded_cell_has_a_descriptive_prompt(path):
    unnamed = []
    for i, cell in enumerate(jupytext.read(path).cells):
        if cell.cell_type != "code" or not FOLDS & set(cell.metadata.get("tags", [])):
            continue
        prompt = cell.metadata.get("mystnb", {}).get("code_prompt_show", "")
        if not prompt.strip() or prompt.strip().lower() == "show the code":
            unnamed.append(f"cell {i}: {cell.source.splitlines()[0][:60]!r}")
    assert not unnamed, f"{path.name}: folded cells without a prompt: {unnamed}"


def test_chapters_are_found():
    assert len(CHAPTERS) == 10
