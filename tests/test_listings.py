"""What a chapter shows with ``show_source`` reads like the lecture (book/writing.md, "Listings").

Every function or method a chapter displays has at most 20 lines of body (after its
docstring, blank lines not counted), no ``raise`` and no guard block: input checks sit at the
public boundary in at most one ``_check_*`` call. No line of a listing, docstring included,
is wider than the text column's 88 characters. A class shown whole is held to the same
rule method by method. The listings are found in the notebooks themselves, so a new
``show_source`` is checked the day it is written.

A listing meets the length rule by being the algorithm, not by moving the lecture's step
into a helper the page never shows: it calls no private helper (``_name``, checks aside)
that nothing else calls, unless that helper is shown too or holds only bookkeeping, listed
in ``BOOKKEEPING`` with what it holds.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MAX_BODY = 20
MAX_WIDTH = (
    88  # the code column holds 90 characters at 1280 px (book/_static/course.css)
)


# Single-use private helpers a listing may call, because they hold bookkeeping and not the
# step the chapter teaches (which stays in the listing): "module:helper" -> what it holds.
BOOKKEEPING = {
    "course_lib.lm.rnn_lm:_windows": "the progress bar and the cpu profile's step budget",
    "course_lib.lm.rnn_lm:_log": "the history, the schedule's step, the divergence stop, a gpu check's step count",
    "course_lib.seq2seq.attention_cost:_saved_bytes": "a memory meter (saved-tensor hooks)",
    "course_lib.seq2seq.attention_cost:_best_seconds": "a stopwatch, best of n runs",
    "course_lib.seq2seq.noisy_channel:_lattice": "the tables the beam reads (t, bigrams)",
    "course_lib.seq2seq.noisy_channel:_best_distinct": (
        "the beam's pruning with duplicate prefixes merged (no word then w = w then no "
        "word); the listing scores every extension by eq. (1)-(2)"
    ),
    "course_lib.decoding.search:_start_beams": (
        "the prompt fed, then K copies of each row; the step the page teaches (extend by "
        "every word, top 2K, back-pointers) is in beam_search"
    ),
    # pretrain: one process or many, the plumbing around nanoGPT's loop, which is shown
    "course_lib.pretraining.distributed:_world": "the rank and world size, or 0 and 1",
    "course_lib.pretraining.distributed:_start": "the optimiser and the resumed step",
    "course_lib.pretraining.distributed:_set_lr": "writes lr_at's rate into the optimiser",
    "course_lib.pretraining.distributed:_mean_over_ranks": "the logged loss's all-reduce",
    "course_lib.pretraining.distributed:_log_and_save": "rank 0's log and checkpoints",
    "course_lib.pretraining.distributed:_wait_for_every_rank": "the final barrier",
}
SOURCES = {
    p: p.read_text(encoding="utf-8")
    for p in sorted((ROOT / "course_lib").rglob("*.py"))
}


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


def references(name: str, module_file: Path) -> int:
    """How often course_lib uses ``name`` besides defining it: across the package when one
    file defines it, else (several helpers of that name) in ``module_file`` only."""
    definition = re.compile(rf"^\s*(?:async )?def {name}\b", re.M)
    defining = [p for p, text in SOURCES.items() if definition.search(text)]
    files = list(SOURCES) if len(defining) == 1 else [module_file]
    return sum(
        len(re.findall(rf"\b{name}\b", SOURCES[p]))
        - len(definition.findall(SOURCES[p]))
        for p in files
    )


def hidden_helpers(obj: object, fn: ast.FunctionDef, shown: set[str]) -> list[str]:
    """The private helpers (``"module:name"``) ``fn`` calls that nothing else calls and
    no chapter shows: where a lecture's step could hide off the page."""
    module = inspect.getmodule(obj)
    found = []
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", "")
        if (
            name.startswith("_")
            and not name.startswith(("__", "_check"))
            and name not in shown
            and references(name, Path(inspect.getfile(module))) == 1
        ):
            found.append(f"{module.__name__}:{name}")
    return found


CASES = [(nb.stem, expr, obj) for nb in NOTEBOOKS for expr, obj in listings(nb)]
SHOWN = {getattr(obj, "__name__", "") for _, _, obj in CASES}


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
        found += [
            f"{name} calls {helper}, a private helper used only there: inline it, show "
            "it, or (bookkeeping only) list it in BOOKKEEPING with what it holds"
            for helper in hidden_helpers(obj, fn, SHOWN)
            if helper not in BOOKKEEPING
        ]
    assert not found, f"{chapter} shows {expr}: " + "; ".join(found)


def test_every_bookkeeping_entry_is_still_a_listings_hidden_helper():
    used = {
        helper
        for _, _, obj in CASES
        for _, fn in functions_shown(obj)
        for helper in hidden_helpers(obj, fn, SHOWN)
    }
    assert not set(BOOKKEEPING) - used, f"stale: {sorted(set(BOOKKEEPING) - used)}"
