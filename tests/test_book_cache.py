"""tools/book_cache.py: a book build re-executes a page only when something it depends on changed.

On a small book made here (two chapters, a Results page, a package with a lazy widgets
package and lazily loaded exercises) with a real jupyter-cache: a change to a module one
chapter imports drops exactly that chapter (and the Results page, which reads every chapter)
from the cache and touches exactly its notebook; a prose edit drops nothing; a change of
profile or of the pins drops every page. On the course itself: the modules each chapter
loads, so that a change to ``course_lib/subwords/`` re-executes Chapter 9 and no other.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import book_cache  # noqa: E402

ENV = {"COURSE_PROFILE": "cpu", "COURSE_WIDGET_MODE": "html", "COURSE_DEVICE": ""}


def notebook(*cells: tuple[str, str]) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "id": f"c{i}", "metadata": {}, "source": source}
                | ({"outputs": [], "execution_count": None} if kind == "code" else {})
                for i, (kind, source) in enumerate(cells)
            ],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


@pytest.fixture
def book(tmp_path: Path) -> Path:
    files = {
        "_toc.yml": "format: jb-book\nroot: intro\nparts:\n  - caption: Chapters\n"
        "    chapters:\n      - file: notebooks/01_a\n      - file: notebooks/02_c\n"
        "      - file: results\n",
        "requirements.txt": "torch==2.13.0\n",
        "course_lib/__init__.py": "from course_lib.runtime import profile\n",
        "course_lib/runtime.py": "def profile():\n    return 'cpu'\n",
        "course_lib/a.py": "from course_lib import b\n",
        "course_lib/b.py": "X = 1\n",
        "course_lib/c.py": "from .sub.d import Y\n",
        "course_lib/sub/__init__.py": "",
        "course_lib/sub/d.py": "Y = 2\n",
        "course_lib/widgets/__init__.py": "_EXPORTS = {'View': 'view', 'Other': 'other'}\n",
        "course_lib/widgets/view.py": "from course_lib import c\n",
        "course_lib/widgets/other.py": "from course_lib import b\n",
        "course_lib/exercises/__init__.py": "",
        "course_lib/exercises/ch02.py": "from course_lib.sub import d\n",
        "course_lib/exercises/ch01.py": "from course_lib import b\n",
        "notebooks/01_a.ipynb": notebook(
            ("markdown", "# A"), ("code", "import course_lib.a")
        ),
        "notebooks/02_c.ipynb": notebook(
            ("markdown", "# C"),
            ("code", "%pip install nothing\nfrom course_lib.widgets import View"),
            ("code", "from course_lib.exercises import check\ncheck('ch02.x', f)"),
        ),
        # a page written as a MyST markdown notebook, as the chapters and the Results page are
        "results.md": "---\njupytext:\n  text_representation:\n    format_name: myst\n"
        "kernelspec:\n  display_name: Python 3\n  language: python\n  name: python3\n---\n\n"
        "# Results\n\n```{code-cell}\nimport course_lib.runtime\n```\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def cache_everything(build: book_cache.Build) -> None:
    """What a successful build leaves: every page's current notebook in the cache."""
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache = get_cache(str(build.cache_dir))
    for page in book_cache.pages(build.root):
        path = book_cache.page_file(build.root, page)
        bundle = CacheBundleIn(book_cache.read_notebook(path), str(path))
        cache.cache_notebook_bundle(bundle, check_validity=False, overwrite=True)


def cached(build: book_cache.Build) -> set[str]:
    from jupyter_cache import get_cache

    cache = get_cache(str(build.cache_dir))
    return {
        page
        for page in book_cache.pages(build.root)
        if book_cache._cached(cache, book_cache.page_file(build.root, page)) is not None
    }


def test_what_each_page_loads(book):
    a = book_cache.module_closure(
        book, book_cache.notebook_code(book / "notebooks/01_a.ipynb")
    )
    c = book_cache.module_closure(
        book, book_cache.notebook_code(book / "notebooks/02_c.ipynb")
    )
    rel = lambda files: {str(f.relative_to(book)) for f in files}  # noqa: E731
    assert rel(a) == {
        "course_lib/__init__.py",
        "course_lib/runtime.py",
        "course_lib/a.py",
        "course_lib/b.py",
    }
    # the lazy widget loads its own module only (not widgets/other.py, which imports b), the
    # relative import is followed, and check("ch02...") loads the chapter's exercises
    assert rel(c) == {
        "course_lib/__init__.py",
        "course_lib/runtime.py",
        "course_lib/widgets/__init__.py",
        "course_lib/widgets/view.py",
        "course_lib/c.py",
        "course_lib/sub/__init__.py",
        "course_lib/sub/d.py",
        "course_lib/exercises/__init__.py",
        "course_lib/exercises/ch02.py",
    }


def test_a_changed_module_re_executes_the_chapter_that_imports_it_and_no_other(book):
    build = book_cache.Build(book)
    assert book_cache.stale(build, ENV) == [
        "notebooks/01_a",
        "notebooks/02_c",
        "results",
    ]
    cache_everything(build)
    book_cache.commit(build, ENV)
    assert book_cache.stale(build, ENV) == []  # nothing changed: nothing runs

    before = {
        p: book_cache.page_file(book, p).stat().st_mtime_ns
        for p in book_cache.pages(book)
    }
    time.sleep(0.01)
    (book / "course_lib/sub/d.py").write_text("Y = 3\n", encoding="utf-8")
    assert book_cache.stale(build, ENV) == ["notebooks/02_c", "results"]
    assert cached(build) == {"notebooks/01_a"}
    after = {
        p: book_cache.page_file(book, p).stat().st_mtime_ns
        for p in book_cache.pages(book)
    }
    assert (
        after["notebooks/01_a"] == before["notebooks/01_a"]
    )  # Sphinx will not read it
    assert after["notebooks/02_c"] > before["notebooks/02_c"]

    cache_everything(build)  # the build executes them again
    book_cache.commit(build, ENV)
    assert book_cache.stale(build, ENV) == []


def test_a_prose_edit_executes_nothing_and_a_new_profile_or_pin_everything(book):
    build = book_cache.Build(book)
    book_cache.stale(build, ENV)
    cache_everything(build)
    book_cache.commit(build, ENV)
    path = book / "notebooks/01_a.ipynb"
    nb = json.loads(path.read_text())
    nb["cells"][0]["source"] = "# A, with a typo fixed"
    path.write_text(json.dumps(nb))
    assert book_cache.stale(build, ENV) == []
    assert cached(build) == {"notebooks/01_a", "notebooks/02_c", "results"}
    assert len(book_cache.stale(build, ENV | {"COURSE_PROFILE": "smoke"})) == 3
    cache_everything(build)
    book_cache.commit(build, ENV)
    (book / "requirements.txt").write_text("torch==2.14.1\n")
    assert len(book_cache.stale(build, ENV)) == 3


def test_a_failed_page_is_executed_again(book):
    build = book_cache.Build(book)
    book_cache.stale(build, ENV)
    seconds = book_cache.commit(build, ENV)  # the build failed: nothing was cached
    assert seconds == dict.fromkeys(["notebooks/01_a", "notebooks/02_c", "results"])
    assert book_cache.stale(build, ENV) == [
        "notebooks/01_a",
        "notebooks/02_c",
        "results",
    ]
    assert "not executed" in book_cache.report(seconds, [])


def test_stale_chapters_are_executed_side_by_side_into_the_cache(book):
    """Two chapters executed at once land in the cache as myst-nb would store them (the
    build then takes their outputs); a chapter that fails is not cached, so the build runs
    it again and reports its error; the Results page is left to the build."""
    (book / "_config.yml").write_text("execute:\n  timeout: 60\n", encoding="utf-8")
    (book / "notebooks/01_a.ipynb").write_text(
        notebook(("code", "import os\nprint(os.getpid())")), encoding="utf-8"
    )
    (book / "notebooks/02_c.ipynb").write_text(
        notebook(("code", "raise ValueError('broken chapter')")), encoding="utf-8"
    )
    build = book_cache.Build(book)
    changed = book_cache.stale(build, ENV)
    errors = book_cache.execute(build, changed, jobs=2)
    assert errors["notebooks/01_a"] is None
    failed = errors["notebooks/02_c"]  # the error's name, then the failing cell's lines
    assert failed.startswith("CellExecutionError\n") and "broken chapter" in failed
    assert cached(build) == {"notebooks/01_a"}
    executed = book / "_build/jupyter_execute/notebooks/01_a.ipynb"
    executed.parent.mkdir(parents=True)  # the page the build writes, without outputs
    executed.write_text((book / "notebooks/01_a.ipynb").read_text(), encoding="utf-8")
    seconds = book_cache.commit(build, ENV)
    assert seconds["notebooks/01_a"] > 0 and seconds["notebooks/02_c"] is None
    (cell,) = json.loads(executed.read_text(encoding="utf-8"))["cells"]
    assert "".join(cell["outputs"][0]["text"]).strip().isdigit()  # commit gave them

    import nbformat
    from jupyter_cache import get_cache

    nb = nbformat.read(book / "notebooks/01_a.ipynb", as_version=4)
    _, merged = get_cache(str(build.cache_dir)).merge_match_into_notebook(nb)
    (output,) = merged.cells[0].outputs
    assert output["name"] == "stdout" and output["text"].strip().isdigit()


def test_a_chapters_toc_holds_that_chapter_and_no_other_or_the_results(book):
    """``book_cache.py toc 2`` (make chapter N=2): the toc of one chapter's build."""
    toc = book_cache.chapter_toc(book, "2")
    assert [c["file"] for p in toc["parts"] for c in p["chapters"]] == [
        "notebooks/02_c"
    ]
    with pytest.raises(SystemExit, match="no chapter '7'"):
        book_cache.chapter_toc(book, "7")


@functools.cache
def course_closures() -> dict[str, list[Path]]:
    return {
        page: book_cache.module_closure(
            ROOT, book_cache.notebook_code(book_cache.page_file(ROOT, page))
        )
        for page in book_cache.pages(ROOT)
    }


def chapters_loading(module: str) -> set[str]:
    """The course's chapter pages whose code loads the file ``module``."""
    return {page for page, files in course_closures().items() if ROOT / module in files}


@pytest.mark.parametrize(
    ("module", "chapter"),
    [
        ("course_lib/subwords/bpe_train.py", "notebooks/09_pretraining"),
        ("course_lib/speech/ctc.py", "notebooks/10_speech"),
        ("course_lib/parsing/oracle.py", "notebooks/04_dependency_parsing"),
        ("course_lib/exercises/ch03.py", "notebooks/03_backprop"),
    ],
)
def test_in_the_course_a_module_of_one_topic_re_executes_its_chapter_only(
    module, chapter
):
    assert chapters_loading(module) == {chapter}


def test_in_the_course_shared_infrastructure_re_executes_every_chapter():
    every = {p for p in book_cache.pages(ROOT) if p.startswith("notebooks/")}
    assert chapters_loading("course_lib/runtime.py") >= every
