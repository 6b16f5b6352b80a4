r"""Dependency trees as arc diagrams: a static matplotlib figure. Chapter 4.

CS224N lecture 4 draws a dependency tree as arcs above the sentence, from each head to its
dependent, with the relation as the arc's label, and an artificial ROOT at the left.
:func:`dependency_arcs` draws one tree (the parser's) and optionally the gold one below it,
colouring each predicted arc by whether its head and label are right, the two halves of
UAS/LAS (``course_lib.parsing.evaluation``). ``course_lib.widgets.parser``'s
``ParserStateExplorer.static_figure`` uses it; this module imports no widget code.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import PathPatch
from matplotlib.path import Path

__all__ = [
    "CORRECT",
    "GOLD",
    "LECTURE_PHRASES",
    "WRONG_HEAD",
    "WRONG_LABEL",
    "dependency_arcs",
    "phrase_tree",
    "tree_leaves",
]

CORRECT, WRONG_LABEL, WRONG_HEAD, GOLD = "#2e7d32", "#ef6c00", "#c62828", "#6e7781"
COLUMN_INCHES = 7.0  # the page's text column: a new figure is never wider
CHAR_EM = 0.62  # a character's mean width in DejaVu Sans, in font sizes


def _word_positions(tokens: Sequence[str]) -> list[float]:
    """Where each token sits: spaced by the tokens' lengths, about one unit a token, so a
    long word does not run into its neighbours."""
    widths = [max(len(w), 3) + 1.5 for w in tokens]  # characters, with the gap
    mean = sum(widths) / len(widths)
    xs, at = [], 0.0
    for i, w in enumerate(widths):
        at += (widths[i - 1] + w) / 2 if i else 0.0
        xs.append(at / mean)
    return xs


def _fitting_figure(tokens: Sequence[str], height: float):
    """A new figure at most the column wide, and the font size (7-10 pt) its words fit at."""
    import matplotlib.pyplot as plt  # a pyplot figure shows inline like viz's figures

    chars = sum(max(len(w), 3) + 1.5 for w in tokens)
    fontsize = max(7.0, min(10.0, (COLUMN_INCHES - 0.4) * 72 / (CHAR_EM * chars)))
    width = min(COLUMN_INCHES, max(4.0, CHAR_EM * fontsize / 72 * chars + 0.4))
    _, ax = plt.subplots(
        figsize=(width, height), gridspec_kw=dict(left=0.02, right=0.98)
    )
    return ax, fontsize


def dependency_arcs(
    words: Sequence[str],
    heads: Sequence[int],
    labels: Sequence[str] | None = None,
    ax: Axes | None = None,
    *,
    gold_heads: Sequence[int] | None = None,
    gold_labels: Sequence[str] | None = None,
    highlight: Iterable[int] = (),
    title: str | None = None,
) -> Axes:
    """Draw a dependency tree as arcs above the words (head → dependent, arrow at the dependent).

    heads[i - 1] is the head of word i (0 = ROOT, drawn at the left; −1 = none yet, no arc).
    With ``gold_heads``, the gold arcs are drawn below in grey and each arc above is coloured:
    green when head and label match the gold, orange when only the head does, red otherwise.
    highlight: dependents (1-based) whose arcs above are drawn in red, thicker (without gold
    heads), e.g. the arcs that cross. Returns the Axes. Chapter 4.
    """
    n = len(words)
    if len(heads) != n or (labels is not None and len(labels) != n):
        raise ValueError(
            f"need one head (and label) per word: {n} words, {len(heads)} heads, "
            f"{'no' if labels is None else len(labels)} labels"
        )
    if gold_heads is not None and len(gold_heads) != n:
        raise ValueError(f"gold_heads needs {n} entries, got {len(gold_heads)}")
    marked = set(highlight)
    if marked - set(range(1, n + 1)):
        raise ValueError(f"highlight holds words 1..{n}, got {sorted(marked)}")
    tokens = ["ROOT", *map(str, words)]
    fontsize = 10.0
    if ax is None:
        ax, fontsize = _fitting_figure(tokens, 3.0)
    xs = _word_positions(tokens)
    centred = {"ha": "center", "va": "center"}
    for x, word in enumerate(tokens):
        ax.text(
            xs[x],
            0,
            word,
            fontsize=fontsize,
            fontweight="bold" if x == 0 else "normal",
            **centred,
        )

    def arc(
        h: int, d: int, label: str, colour: str, below: bool, lw: float = 1.2
    ) -> float:
        """A cubic Bézier from head to dependent, ``height`` high (it peaks at 3/4 of lift)."""
        sign, height = (-1.0 if below else 1.0), 0.35 + 0.4 * abs(h - d) ** 0.5
        y0, lift = sign * 0.22, sign * height * 4 / 3
        xh, xd = xs[h], xs[d]
        path = Path(
            [(xh, y0), (xh, y0 + lift), (xd, y0 + lift), (xd, y0)],
            [Path.MOVETO, Path.CURVE4, Path.CURVE4, Path.CURVE4],
        )
        ax.add_patch(
            PathPatch(path, fc="none", ec=colour, lw=lw, ls="--" if below else "-")
        )
        ax.plot([xd], [y0], marker="^" if below else "v", ms=5, color=colour)
        if label:
            # on the curve at t = 0.8, over the dependent's end: the arcs of one head fan out
            # there, so its labels do not pile up at the arcs' shared peak
            t = 0.8
            near_h, near_d = (
                (1 - t) ** 3 + 3 * (1 - t) ** 2 * t,
                3 * (1 - t) * t**2 + t**3,
            )
            box = {"fc": "white", "ec": "none", "pad": 0.3}
            ax.text(
                near_h * xh + near_d * xd,
                y0 + lift * 3 * (1 - t) * t,
                label,
                fontsize=8,
                color=colour,
                bbox=box,
                **centred,
            )
        return height + 0.22

    top = 0.5
    for d, h in enumerate(heads, start=1):
        if int(h) < 0:
            continue
        label = labels[d - 1] if labels is not None else ""
        colour = WRONG_HEAD if d in marked else "#1f2328"
        if gold_heads is not None:
            same = gold_labels is None or labels is None or gold_labels[d - 1] == label
            colour = (
                WRONG_HEAD
                if gold_heads[d - 1] != h
                else CORRECT
                if same
                else WRONG_LABEL
            )
        lw = 2.4 if d in marked else 1.2
        top = max(top, arc(int(h), d, label, colour, below=False, lw=lw))
    bottom = 0.5
    if gold_heads is not None:
        for d, h in enumerate(gold_heads, start=1):
            label = gold_labels[d - 1] if gold_labels is not None else ""
            bottom = max(bottom, arc(int(h), d, label, GOLD, below=True))
    ax.set_xlim(-0.7, xs[-1] + 0.7)
    ax.set_ylim(-bottom - 0.3, top + 0.3)
    ax.axis("off")
    if gold_heads is not None:  # the key to the colours
        key = [
            ("head and label right", CORRECT),
            ("head right, label wrong", WRONG_LABEL),
        ]
        key += [("head wrong", WRONG_HEAD), ("gold (below)", GOLD)]
        handles = [Line2D([], [], color=c, lw=2, label=t) for t, c in key]
        ax.legend(
            handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=9
        )
    if title:
        ax.set_title(title, fontsize=10)
    return ax


PhraseTree = tuple  # (label, child, ...): a child is a subtree or a word (str)

# The lecture's first sentence as phrase structure (Penn Treebank labels), beside the
# dependency tree of LECTURE_EXAMPLE: S → NP VP, VP → V NP.
LECTURE_PHRASES: PhraseTree = (
    "S",
    ("NP", ("PRP", "I")),
    ("VP", ("VBD", "ate"), ("NP", ("NN", "fish"))),
)


def tree_leaves(tree: PhraseTree | str) -> list[str]:
    """The words of a phrase-structure tree, left to right."""
    if isinstance(tree, str):
        return [tree]
    return [w for child in tree[1:] for w in tree_leaves(child)]


def phrase_tree(
    tree: PhraseTree, ax: Axes | None = None, *, title: str | None = None
) -> Axes:
    """Draw a phrase-structure (constituency) tree: words on a line, each phrase above the
    words it spans, joined to its parts. tree: ``(label, child, ...)``, a child a subtree
    or a word, e.g. :data:`LECTURE_PHRASES`. Returns the Axes. Chapter 4.
    """
    _check_tree(tree)
    words = tree_leaves(tree)
    if ax is None:
        import matplotlib.pyplot as plt

        width = min(COLUMN_INCHES, max(3.0, 0.9 * len(words)))
        _, ax = plt.subplots(figsize=(width, 3.0))
    next_word = iter(range(len(words)))
    depth = _height(tree)

    def place(node: PhraseTree | str, level: int) -> tuple[float, float]:
        """Draw ``node`` and below it; return where its label sits (x, y)."""
        if isinstance(node, str):
            x = float(next(next_word))
            ax.text(x, 0, node, ha="center", va="center", fontsize=10)
            return x, 0.0
        spots = [place(child, level + 1) for child in node[1:]]
        x, y = sum(s[0] for s in spots) / len(spots), float(depth - level)
        for cx, cy in spots:
            ax.plot([x, cx], [y - 0.15, cy + 0.15], color="#57606a", lw=1)
        ax.text(
            x,
            y,
            node[0],
            ha="center",
            va="center",
            fontsize=10,
            fontweight="bold",
            color="#0550ae",
        )
        return x, y

    place(tree, 0)
    ax.set_xlim(-0.7, len(words) - 0.3)
    ax.set_ylim(-0.4, depth + 0.4)
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def _height(node: PhraseTree | str) -> int:
    return 0 if isinstance(node, str) else 1 + max(_height(c) for c in node[1:])


def _check_tree(node: object) -> None:
    if isinstance(node, str):
        return
    if not (isinstance(node, tuple) and len(node) >= 2 and isinstance(node[0], str)):
        raise ValueError(
            f"a phrase is a tuple (label, child, ...) with at least one child; got {node!r}"
        )
    for child in node[1:]:
        _check_tree(child)
