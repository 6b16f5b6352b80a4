"""Each chapter's notebook is the one its text source stands for (tools/notebooks_sync.py).

A chapter is edited as ``notebooks/NN_name.md``, a MyST markdown notebook, and the book is built
from it; Colab opens, and nbval runs, ``notebooks/NN_name.ipynb``, written from it by
``make notebooks-sync``. These tests fail while the two disagree in any cell, source, tag,
prompt or id, and check that the book's reader (myst-nb) and jupytext read the same code from a
source, since the book's execution cache is keyed on it.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import notebooks_sync  # noqa: E402  (tools/ is not a package)

SOURCES = notebooks_sync.sources(ROOT)


def test_every_chapter_has_a_text_source_and_a_notebook():
    assert len(SOURCES) == 10, [p.name for p in SOURCES]
    assert notebooks_sync.orphans(ROOT) == []


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name[:2])
def test_the_notebook_is_written_from_its_source(source):
    found = notebooks_sync.differences(source)
    assert not found, "\n".join(found) + "\nRun `make notebooks-sync`."


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name[:2])
def test_the_book_reads_the_code_that_jupytext_reads(source):
    from myst_nb.core.read import read_myst_markdown_notebook
    from myst_parser.config.main import MdParserConfig

    text = source.read_text(encoding="utf-8")
    book = read_myst_markdown_notebook(text, MdParserConfig())
    ours = jupytext.reads(text, fmt="md:myst")
    assert book.metadata["kernelspec"] == ours.metadata["kernelspec"]
    assert [(c.cell_type, c.metadata) for c in book.cells] == [
        (c.cell_type, c.metadata) for c in ours.cells
    ]
    code = [c.source for c in book.cells if c.cell_type == "code"]
    assert code == [c.source for c in ours.cells if c.cell_type == "code"]


@pytest.fixture
def chapter(tmp_path):
    """A copy of Chapter 3's source and notebook in a tree of their own."""
    (tmp_path / "notebooks").mkdir()
    shutil.copy(
        ROOT / "pyproject.toml", tmp_path / "pyproject.toml"
    )  # ruff.toml extends it
    for name in ("03_backprop.md", "03_backprop.ipynb", "ruff.toml"):
        shutil.copy(ROOT / "notebooks" / name, tmp_path / "notebooks" / name)
    return tmp_path / "notebooks" / "03_backprop.md"


def _edit_notebook(path: Path, edit) -> None:
    nb = nbformat.read(path, as_version=4)
    edit(nb)
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")


def _third_code(nb):
    return [c for c in nb.cells if c.cell_type == "code"][2]


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda nb: setattr(_third_code(nb), "source", "x = 1"), "source"),
        (lambda nb: _third_code(nb).metadata.update(tags=["hide-input"]), "metadata"),
        (lambda nb: setattr(nb.cells[0], "id", "cafe0000"), "id"),
        (lambda nb: nb.cells.pop(), "cells"),
    ],
    ids=["source", "tag", "id", "cell"],
)
def test_a_notebook_edited_by_hand_is_caught(chapter, edit, field):
    assert notebooks_sync.differences(chapter) == []
    _edit_notebook(chapter.with_suffix(".ipynb"), edit)
    found = notebooks_sync.differences(chapter)
    assert found and any(field in line for line in found), found


def test_a_prompt_edited_in_the_source_is_caught_and_the_sync_writes_it(chapter):
    text = chapter.read_text(encoding="utf-8")
    assert "Imports and this profile's sizes" in text
    chapter.write_text(
        text.replace("Imports and this profile's sizes", "Setup"), "utf-8"
    )
    assert notebooks_sync.differences(chapter) == [
        "03_backprop.ipynb cell 2: its metadata differs from the source's"
    ]
    assert notebooks_sync.sync(chapter) == ["03_backprop.ipynb"]
    assert notebooks_sync.differences(chapter) == []
    nb = nbformat.read(chapter.with_suffix(".ipynb"), as_version=4)
    assert nb.cells[2].metadata["mystnb"]["code_prompt_show"] == "Setup"


def test_the_sync_formats_the_source_and_keeps_other_ids(chapter):
    before = nbformat.read(chapter.with_suffix(".ipynb"), as_version=4)
    text = chapter.read_text(encoding="utf-8")
    cramped = "gen = torch.Generator().manual_seed(run_seed( 0 ))"
    assert text.count("gen = torch.Generator().manual_seed(run_seed(0))") == 1
    chapter.write_text(text.replace(cramped.replace(" 0 ", "0"), cramped), "utf-8")
    assert notebooks_sync.sync(chapter) == [
        "03_backprop.md"
    ]  # the notebook is as it was
    assert chapter.read_text(encoding="utf-8") == text  # ruff put it back
    assert notebooks_sync.sync(chapter) == []  # nothing left to write
    after = nbformat.read(chapter.with_suffix(".ipynb"), as_version=4)
    assert [c.id for c in after.cells] == [c.id for c in before.cells]
