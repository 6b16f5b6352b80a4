"""Which ``course_lib`` files a chapter loads, read from the sources without importing them
(``modulefinder``), following the lazy exports of a package's ``__getattr__``.
``tools/book_cache.py`` keys a chapter on them.
"""

from __future__ import annotations

import ast
import re
from modulefinder import ModuleFinder
from pathlib import Path

PACKAGE = "course_lib"


def is_notebook(root: Path, page: str) -> bool:
    """Whether a page of the book is executed: an ``.ipynb``, or a MyST markdown notebook (a
    ``.md`` whose front matter names a kernel)."""
    text = root / f"{page}.md"
    if text.is_file():
        head = text.read_text(encoding="utf-8")[:1000]
        return head.startswith("---") and "\nkernelspec:" in head.split("\n---", 1)[0]
    return (root / f"{page}.ipynb").is_file()


def page_file(root: Path, page: str) -> Path:
    """The file a notebook page of the book is read from: its MyST text source
    (``notebooks/03_backprop.md``) where it has one, else its ``.ipynb``."""
    text = root / f"{page}.md"
    return text if text.is_file() else root / f"{page}.ipynb"


def read_notebook(path: Path):
    """The notebook at ``path``: an ``.ipynb``, or a MyST markdown notebook (``.md``)."""
    import nbformat

    if path.suffix == ".md":
        import jupytext

        return jupytext.reads(path.read_text(encoding="utf-8"), fmt="md:myst")
    return nbformat.read(path, as_version=4)


def notebook_code(path: Path) -> str:
    """A notebook's code cells as one program: IPython magics (``%pip``, ``!ls``) become
    ``pass``, and each ``check("chNN.name", ...)`` imports ``course_lib.exercises.chNN``
    (which ``course_lib.exercises`` imports on first use)."""
    lines = []
    for cell in read_notebook(path).cells:
        if cell.cell_type == "code":
            lines.append(re.sub(r"(?m)^([ \t]*)[%!].*$", r"\1pass", cell.source))
            for chapter in re.findall(r"""check\(\s*["'](ch\d\d)\.""", cell.source):
                lines.append(f"import {PACKAGE}.exercises.{chapter}")
    return "\n".join(lines)


class _Finder(ModuleFinder):
    """A ModuleFinder that also loads the submodule of a lazily exported name."""

    def import_module(self, partname, fqname, parent):
        module = super().import_module(partname, fqname, parent)
        init = getattr(parent, "__file__", None) or ""
        if module is None and init.endswith("__init__.py"):
            lazy = lazy_exports(Path(init)).get(partname)
            if lazy:
                super().import_module(lazy, f"{parent.__name__}.{lazy}", parent)
        return module


def module_closure(root: Path, code: str) -> list[Path]:
    """Every ``course_lib`` file the program ``code`` loads, with the package data (the
    widgets' JavaScript, manifests) of every package involved. Sorted, each once."""
    finder = _Finder(path=[str(root)])
    finder.scan_code(compile(code, "<notebook>", "exec"), finder.add_module("__main__"))
    files: set[Path] = set()
    for name, module in finder.modules.items():
        if name.split(".")[0] == PACKAGE and module.__file__:
            files.add(Path(module.__file__))
            if module.__path__:  # a package: its data too
                files |= {
                    p
                    for p in Path(module.__path__[0]).rglob("*")
                    if p.is_file()
                    and p.suffix not in (".py", ".pyc")
                    and "__pycache__" not in p.parts
                }
    return sorted(files)


def lazy_exports(init: Path) -> dict[str, str]:
    """A package's ``_EXPORTS`` table (name -> submodule), read without importing it: the
    names its ``__getattr__`` imports on first use (PEP 562, as ``course_lib.widgets``)."""
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [
            getattr(t, "id", None) for t in node.targets
        ] == ["_EXPORTS"]:
            return ast.literal_eval(node.value)
    return {}
