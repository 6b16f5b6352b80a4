"""Which ``course_lib`` modules a chapter depends on, read from the sources without
importing them: its import lines, followed through the package's own imports (and the lazy
exports of a package's ``__getattr__``). ``tools/book_cache.py`` keys a chapter on them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

PACKAGE = "course_lib"


def _module_file(root: Path, name: str) -> Path | None:
    """The file of module ``course_lib.x.y`` (a .py file or a package's __init__.py)."""
    base = root.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imports(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """The ``course_lib`` modules one source imports (``from course_lib import data`` counts
    the subpackage ``course_lib.data``; relative imports are resolved against ``module``)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                parts = parts if is_package else parts[:-1]
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}
    return {n for n in found if n == PACKAGE or n.startswith(PACKAGE + ".")}


def _parse(source: str) -> ast.AST:
    """Parse a notebook cell or a module; IPython magics (``%pip``) become ``pass``."""
    lines = [
        line[: len(line) - len(line.lstrip())] + "pass"
        if line.lstrip().startswith(("%", "!"))
        else line
        for line in source.splitlines()
    ]
    return ast.parse("\n".join(lines))


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


def notebook_imports(path: Path) -> set[str]:
    """The ``course_lib`` modules a notebook's code cells import, and the exercise modules
    its ``check("chNN.name", ...)`` calls load (``course_lib.exercises`` imports a chapter's
    references on first use)."""
    found: set[str] = set()
    for cell in read_notebook(path).cells:
        if cell.cell_type == "code":
            source = cell.source
            found |= _imports(_parse(source), "__main__", False)
            for chapter in re.findall(r"""check\(\s*["'](ch\d\d)\.""", source):
                found.add(f"{PACKAGE}.exercises.{chapter}")
    return found


def module_closure(root: Path, names: Iterable[str]) -> list[Path]:
    """Every ``course_lib`` file the modules ``names`` load: themselves, their parent
    packages' ``__init__.py``, what those import, and so on; plus the package data (the
    widgets' JavaScript, manifests) of every package involved. Sorted, each once."""
    seen: set[str] = set()
    todo = list(names)
    files: set[Path] = set()
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for i in range(1, len(parts) + 1):  # importing a.b.c runs a and a.b first
            prefix = ".".join(parts[:i])
            if prefix in seen:
                continue
            seen.add(prefix)
            path = _module_file(root, prefix)
            if path is None:  # a name imported from a package: lazily from a submodule?
                parent = _module_file(root, ".".join(parts[: i - 1]))
                if parent is not None and parent.name == "__init__.py":
                    lazy = lazy_exports(parent).get(parts[i - 1])
                    if lazy:
                        todo.append(".".join(parts[: i - 1] + [lazy]))
                continue
            files.add(path)
            if path.name == "__init__.py":
                files |= {
                    p
                    for p in path.parent.rglob("*")
                    if p.is_file()
                    and p.suffix not in (".py", ".pyc")
                    and "__pycache__" not in p.parts
                }
            tree = ast.parse(path.read_text(encoding="utf-8"))
            todo += sorted(_imports(tree, prefix, path.name == "__init__.py"))
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
