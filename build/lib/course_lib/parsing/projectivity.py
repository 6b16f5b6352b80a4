r"""Well-formed dependency trees and projectivity. Chapter 4.

CS224N lecture 4: a dependency tree has one root (one word whose head is ROOT), no cycles, and
every word has exactly one head, so it is a tree over ROOT + n words. It is *projective* when
no two arcs cross when drawn above the words (ROOT at position 0): equivalently, every head
dominates all the words between itself and each dependent. The arc-standard system builds only
projective trees; UD English EWT train has 288 non-projective trees out of 12,544.

``heads`` is always the CoNLL-U list: heads[i - 1] is the head of word i, 0 = ROOT.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["check_tree", "count_nonprojective", "crossing_arcs", "is_projective"]


def check_tree(heads: Sequence[int], name: str = "heads") -> None:
    """Raise ValueError unless ``heads`` is a single-rooted tree over words 1..n.

    Checks: integers, each in 0..n, no word its own head, exactly one word with head 0,
    and no cycle (every word reaches ROOT). The message names the words at fault.
    """
    n = len(heads)
    if n == 0:
        raise ValueError(f"{name} is empty: a sentence needs at least one word")
    for i, h in enumerate(heads, start=1):
        if isinstance(h, bool) or not hasattr(h, "__index__"):
            raise ValueError(f"{name}: the head of word {i} is {h!r}, not an integer")
        if not 0 <= int(h) <= n:
            raise ValueError(
                f"{name}: the head of word {i} is {int(h)}, out of range 0..{n} "
                f"for a {n}-word sentence"
            )
        if int(h) == i:
            raise ValueError(f"{name}: word {i} is its own head")
    roots = [i for i, h in enumerate(heads, start=1) if int(h) == 0]
    if len(roots) != 1:
        raise ValueError(
            f"{name}: a tree has exactly one word whose head is ROOT (0); found "
            f"{len(roots)}: words {roots}"
        )
    state = [0] * (n + 1)  # 0 unseen, 1 on the current path, 2 reaches ROOT
    state[0] = 2
    for start in range(1, n + 1):
        path, i = [], start
        while state[i] == 0:
            state[i] = 1
            path.append(i)
            i = int(heads[i - 1])
        if state[i] == 1:
            cycle = path[path.index(i) :]
            raise ValueError(
                f"{name}: words {cycle} form a cycle (each is the head of the previous "
                "one), so they never reach ROOT"
            )
        for j in path:
            state[j] = 2


def crossing_arcs(
    heads: Sequence[int],
) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Every pair of arcs (head, dependent) that cross when drawn above the sentence.

    Two arcs with spans (a, b) and (c, d), a < b and c < d, cross when a < c < b < d.
    ROOT's arc spans (0, root word). Returns [((h₁, d₁), (h₂, d₂)), …], sorted.
    """
    arcs = [(int(h), d) for d, h in enumerate(heads, start=1)]
    spans = sorted((min(a), max(a), a) for a in arcs)
    found = []
    for i, (a, b, arc1) in enumerate(spans):
        for c, d, arc2 in spans[i + 1 :]:
            if c >= b:
                break
            if a < c < b < d:
                found.append((arc1, arc2))
    return sorted(found)


def is_projective(heads: Sequence[int]) -> bool:
    """True when no two arcs cross (ROOT's arc included): the arc-standard system can build it."""
    return not crossing_arcs(heads)


def count_nonprojective(trees: Sequence[Sequence[int] | object]) -> int:
    """How many of ``trees`` (head lists, or sentences with ``.heads``) are non-projective."""
    return sum(not is_projective(getattr(t, "heads", t)) for t in trees)
