"""The book's diagrams of its models, drawn in Python in one style and committed as SVG.

    python -m course_lib.diagrams            # make diagrams: book/diagrams/<name>.svg, all
    python -m course_lib.diagrams --check    # make test: exit 1 where a committed SVG differs

Each diagram is a function returning a :class:`~course_lib.diagrams.canvas.Canvas`,
registered with :func:`diagram` under its file name with its alt text. A chapter places it
before the code that implements it, as a MyST figure of class ``diagram``::

    ```{figure} ../book/diagrams/lstm_cell.svg
    :class: diagram
    :alt: (the registered alt text)

    The caption, in the prose's notation.
    ```

The drawings need Python and matplotlib only, so ``make book`` works on a fresh machine.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from course_lib.diagrams.canvas import Canvas

__all__ = ["Canvas", "DIAGRAMS", "Diagram", "diagram", "load_all", "write_all"]

# The modules that register diagrams, a chapter's (or a topic's) each.
MODULES: tuple[str, ...] = (
    "word2vec",
    "graph",
    "arc_standard",
    "rnn",
    "lstm_gru",
    "seq2seq",
    "transformer",
    "pretraining",
    "speech",
)
OUT = Path(__file__).resolve().parents[2] / "book" / "diagrams"


@dataclass(frozen=True)
class Diagram:
    name: str
    alt: str
    draw: Callable[[], Canvas]


DIAGRAMS: dict[str, Diagram] = {}


def diagram(
    name: str, alt: str
) -> Callable[[Callable[[], Canvas]], Callable[[], Canvas]]:
    """Register ``draw`` as the diagram ``book/diagrams/<name>.svg``, described by ``alt``."""

    def register(draw: Callable[[], Canvas]) -> Callable[[], Canvas]:
        if name in DIAGRAMS and DIAGRAMS[name].draw is not draw:
            raise ValueError(f"two diagrams are named {name!r}")
        if not alt.strip():
            raise ValueError(f"the diagram {name!r} needs alt text")
        DIAGRAMS[name] = Diagram(name, alt, draw)
        return draw

    return register


def load_all() -> dict[str, Diagram]:
    """Every registered diagram (importing the modules that register them)."""
    for module in MODULES:
        importlib.import_module(f"course_lib.diagrams.{module}")
    return DIAGRAMS


def write_all(out: Path = OUT, *, check: bool = False) -> list[str]:
    """Write each diagram's SVG to ``out`` (only those that changed); with ``check``, write
    nothing. Returns the names written (or, checking, those that differ or are missing)."""
    changed = []
    for name, entry in sorted(load_all().items()):
        path = out / f"{name}.svg"
        text = entry.draw().svg()
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        changed.append(name)
        if not check:
            out.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(path)
    return changed
