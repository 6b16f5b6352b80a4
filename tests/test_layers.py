"""course_lib's packages import only downwards, through the layers below (none upwards, no cycle).

    {"runtime", "checks", "figure_record"},
    {"compare", "step_plan"},
classifier) sits below ``embeddings`` (Chapters 1-2), which evaluates its vectors extrinsically
with Chapter 3's window classifier; ``rnn`` (the cells, Chapters 5-6) sits below the language
models and the classifiers built from them; ``checkpoints`` sits above the models it trains
and saves. Widgets and exercises are at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import course_lib

ROOT = Path(course_lib.__file__).parent

LAYERS = [
    {"runtime", "checks", "figure_record"},
    {"compare", "step_plan"},
    {"training", "data", "show", "viz"},
    {"results", "results_report"},
    {"decoding"},
    {"backprop"},
    {"embeddings"},
    {"parsing"},
    {"rnn"},
    {"lm", "sentiment"},
    {"seq2seq"},
    {"transformer"},
    {"subwords", "pretraining"},
    {"checkpoints"},
    {"speech"},
    {"widgets", "exercises", "diagrams"},
]


def _part(path: Path) -> str:
    rel = path.relative_to(ROOT)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            if name.startswith("course_lib."):
                found.add(name.split(".")[1])
    return found


def test_every_part_of_course_lib_has_a_layer():
    parts = {_part(p) for p in ROOT.rglob("*.py")} - {"__init__"}
    placed = set().union(*LAYERS)
    assert parts <= placed, f"give these a layer in LAYERS: {sorted(parts - placed)}"


def test_imports_run_only_downwards():
    layer = {part: k for k, parts in enumerate(LAYERS) for part in parts}
    upward = sorted(
        f"{path.relative_to(ROOT)} imports course_lib.{target}"
        for path in ROOT.rglob("*.py")
        if (part := _part(path)) != "__init__"
        for target in _imports(path)
        if target != part and layer.get(target, -1) >= layer[part]
    )
    assert not upward, "imports at or above their own layer:\n" + "\n".join(upward)
