"""What a chapter shows with ``show_source`` reads like the lecture (book/writing.md, "Listings").

Every function or method a chapter displays has at most 20 lines of body (after its
docstring, blank lines not counted), no ``raise`` and no guard block: input checks sit at the
public boundary in at most one ``_check_*`` call. No line of a listing, docstring included,
is wider than the text column's 88 characters. A class shown whole is held to the same
rule method by method. The listings are found in the notebooks themselves, so a new
``show_source`` is checked the day it is written.
"""

from __future__ import annotations

import ast
import inspect
import json
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MAX_BODY = 20
MAX_WIDTH = (
    88  # the code column holds 90 characters at 1280 px (book/_static/course.css)
)


def code_cells(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def _python(source: str) -> str:
    """A cell without its IPython magics (``%pip ...``), so that ``ast`` can read it."""
    return "\n".join(
        line[: len(line) - len(line.lstrip())] + "pass"
        if line.lstrip().startswith(("%", "!"))
        else line
        for line in source.splitlines()
    )


def listings(path: Path) -> list[tuple[str, object]]:
    """Every ``show_source(expr)`` of a notebook, with the object it shows.

    The notebook's own import statements are run (nothing else), then each expression is
    evaluated among them.
    """
    namespace: dict[str, object] = {}
    exprs: list[str] = []
    for source in code_cells(path):
        tree = ast.parse(_python(source))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and node.col_offset == 0:
                exec(compile(ast.Module([node], []), str(path), "exec"), namespace)
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "show_source"
                and node.args
            ):
                exprs.append(ast.unparse(node.args[0]))
    return [(e, eval(e, namespace)) for e in exprs]  # noqa: S307 (the notebooks' own names)


def functions_shown(obj: object) -> list[tuple[str, ast.FunctionDef]]:
    """The function definitions a listing of ``obj`` shows (a class: each of its methods)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(obj)))
    node = tree.body[0]
    if isinstance(node, ast.ClassDef):
        return [
            (f"{node.name}.{item.name}", item)
            for item in node.body
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
    return [(node.name, node)]


def problems(name: str, fn: ast.FunctionDef, source: str) -> list[str]:
    """What makes one shown function read less like the lecture."""
    body = fn.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    found = []
    if body:
        lines = source.splitlines()[body[0].lineno - 1 : fn.end_lineno]
        length = sum(1 for line in lines if line.strip())
        if length > MAX_BODY:
            found.append(f"{name}: {length} lines of body (at most {MAX_BODY})")
    raises = [n for n in ast.walk(fn) if isinstance(n, ast.Raise)]
    if raises:
        found.append(
            f"{name}: {len(raises)} raise statement(s) (move checks into _check_*)"
        )
    checks = [
        n
        for n in ast.walk(fn)
        if isinstance(n, ast.Call)
        and (getattr(n.func, "id", None) or getattr(n.func, "attr", "")).startswith(
            ("_check", "check_")
        )
    ]
    if len(checks) > 1:
        found.append(
            f"{name}: {len(checks)} check calls (at most one, at the boundary)"
        )
    return found


CASES = [(nb.stem, expr, obj) for nb in NOTEBOOKS for expr, obj in listings(nb)]


def test_the_chapters_show_listings():
    assert len(CASES) >= 40, f"only {len(CASES)} show_source listings found"


@pytest.mark.parametrize(
    ("chapter", "expr", "obj"), CASES, ids=[f"{c}:{e}" for c, e, _ in CASES]
)
def test_a_listing_reads_like_the_lecture(chapter, expr, obj):
    source = textwrap.dedent(inspect.getsource(obj))
    found = [
        f"line {i} is {len(line)} characters wide (at most {MAX_WIDTH})"
        for i, line in enumerate(source.splitlines(), 1)
        if len(line) > MAX_WIDTH
    ]
    for name, fn in functions_shown(obj):
        found += problems(name, fn, source)
    assert not found, f"{chapter} shows {expr}: " + "; ".join(found)
