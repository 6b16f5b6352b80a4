r"""Dependency trees as arc diagrams: a static matplotlib figure. Chapter 4.

CS224N lecture 4 draws a dependency tree as arcs above the sentence, from each head to its
dependent, with the relation as the arc's label, and an artificial ROOT at the left.
:func:`dependency_arcs` draws one tree (the parser's) and optionally the gold one below it,
colouring each predicted arc by whether its head and label are right, the two halves of
UAS/LAS (``course_lib.parsing.evaluation``). ``course_lib.widgets.parser``'s
``ParserStateExplorer.static_figure`` uses it; this module imports no widget code.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.patches import PathPatch
from matplotlib.path import Path

__all__ = ["CORRECT", "GOLD", "WRONG_HEAD", "WRONG_LABEL", "dependency_arcs"]

CORRECT, WRONG_LABEL, WRONG_HEAD, GOLD = "#2e7d32", "#ef6c00", "#c62828", "#8c959f"


def dependency_arcs(
    words: Sequence[str],
    heads: Sequence[int],
    labels: Sequence[str] | None = None,
    ax: Axes | None = None,
    *,
    gold_heads: Sequence[int] | None = None,
    gold_labels: Sequence[str] | None = None,
    title: str | None = None,
) -> Axes:
    """Draw a dependency tree as arcs above the words (head → dependent, arrow at the dependent).

    heads[i - 1] is the head of word i (0 = ROOT, drawn at the left; −1 = none yet, no arc).
    With ``gold_heads``, the gold arcs are drawn below in grey and each arc above is coloured:
    green when head and label match the gold, orange when only the head does, red otherwise.
    Returns the Axes. Chapter 4.
    """
    n = len(words)
    if len(heads) != n or (labels is not None and len(labels) != n):
        raise ValueError(
            f"need one head (and label) per word: {n} words, {len(heads)} heads, "
            f"{'no' if labels is None else len(labels)} labels"
        )
    if gold_heads is not None and len(gold_heads) != n:
        raise ValueError(f"gold_heads needs {n} entries, got {len(gold_heads)}")
    if ax is None:
        import matplotlib.pyplot as plt  # a pyplot figure shows inline like viz's figures

        _, ax = plt.subplots(figsize=(max(4.0, 0.9 * (n + 1)), 3.0))
    centred = {"ha": "center", "va": "center"}
    for x, word in enumerate(["ROOT", *map(str, words)]):
        ax.text(
            x,
            0,
            word,
            fontsize=10,
            fontweight="bold" if x == 0 else "normal",
            **centred,
        )

    def arc(h: int, d: int, label: str, colour: str, below: bool) -> float:
        """A cubic Bézier from head to dependent, ``height`` high (it peaks at 3/4 of lift)."""
        sign, height = (-1.0 if below else 1.0), 0.35 + 0.4 * abs(h - d) ** 0.5
        y0, lift = sign * 0.22, sign * height * 4 / 3
        path = Path(
            [(h, y0), (h, y0 + lift), (d, y0 + lift), (d, y0)],
            [Path.MOVETO, Path.CURVE4, Path.CURVE4, Path.CURVE4],
        )
        ax.add_patch(
            PathPatch(path, fc="none", ec=colour, lw=1.2, ls="--" if below else "-")
        )
        ax.plot([d], [y0], marker="^" if below else "v", ms=5, color=colour)
        if label:
            box = {"fc": "white", "ec": "none", "pad": 0.3}
            ax.text((h + d) / 2, y0 + sign * height, label, fontsize=8, color=colour,
                    bbox=box, **centred)  # fmt: skip
        return height + 0.22

    top = 0.5
    for d, h in enumerate(heads, start=1):
        if int(h) < 0:
            continue
        label = labels[d - 1] if labels is not None else ""
        colour = "#1f2328"
        if gold_heads is not None:
            same = gold_labels is None or labels is None or gold_labels[d - 1] == label
            colour = (
                WRONG_HEAD
                if gold_heads[d - 1] != h
                else CORRECT
                if same
                else WRONG_LABEL
            )
        top = max(top, arc(int(h), d, label, colour, below=False))
    bottom = 0.5
    if gold_heads is not None:
        for d, h in enumerate(gold_heads, start=1):
            label = gold_labels[d - 1] if gold_labels is not None else ""
            bottom = max(bottom, arc(int(h), d, label, GOLD, below=True))
    ax.set_xlim(-0.7, n + 0.7)
    ax.set_ylim(-bottom - 0.3, top + 0.3)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    return ax
