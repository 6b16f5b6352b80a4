r"""The static oracle: the transitions that build a given (projective) tree. Chapter 4.

CS224N lecture 4; Nivre (2004); Chen & Manning (2014), section 3.1 (training examples are the
oracle's configurations and transitions). With s₁ the top of the stack and s₂ below it:

1. LEFT-ARC(r)  if s₂ ≠ ROOT and head(s₂) = s₁, r = label(s₂);
2. RIGHT-ARC(r) if head(s₁) = s₂ and every gold dependent of s₁ is already attached, r = label(s₁);
3. SHIFT        otherwise.

On a projective tree this reaches the gold tree in exactly 2n transitions. On a non-projective
tree it gets stuck (SHIFT with an empty buffer), so :func:`static_oracle` checks first and
raises :class:`NonProjectiveError`, a ValueError that names the crossing arcs; callers that
want to skip such sentences test :func:`~course_lib.parsing.projectivity.is_projective`.

:func:`oracle_ids` applies the same rule to a whole :class:`BatchConfigurations` at once.
Shape legend: B sentences, P positions (ROOT, words, sentinel), R rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from course_lib.parsing.projectivity import check_tree, crossing_arcs
from course_lib.parsing.state import BatchConfigurations
from course_lib.parsing.transitions import (
    ROOT,
    SHIFT,
    Configuration,
    Transition,
    TransitionSystem,
    replay,
)

__all__ = [
    "NonProjectiveError",
    "gold_arrays",
    "oracle_ids",
    "oracle_next",
    "oracle_trace",
    "static_oracle",
]


class NonProjectiveError(ValueError):
    """The arc-standard system cannot build this tree: two of its arcs cross."""


def oracle_next(
    config: Configuration,
    heads: Sequence[int],
    deprels: Sequence[str],
    missing: Sequence[int],
) -> Transition:
    """The oracle's transition in ``config`` towards the tree ``heads``/``deprels``.

    missing[i]: how many gold dependents word i (0 = ROOT) still lacks in ``config``.
    Raises NonProjectiveError, naming the configuration, when no transition leads there.
    """
    if len(config.stack) >= 2:
        s2, s1 = config.stack[-2], config.stack[-1]
        if s2 != ROOT and heads[s2 - 1] == s1:
            return Transition("LEFT-ARC", deprels[s2 - 1])
        if heads[s1 - 1] == s2 and missing[s1] == 0:
            if s2 != ROOT or not config.buffer:
                return Transition("RIGHT-ARC", deprels[s1 - 1])
    _check_can_shift(config)  # else no transition leads to the gold tree
    return SHIFT


def _check_can_shift(config: Configuration) -> None:
    """SHIFT needs a word in the buffer: without one, the oracle is stuck (a crossing tree)."""
    if not config.buffer:
        raise NonProjectiveError(
            f"the oracle is stuck in {config}: no transition leads to the gold tree, "
            "which must be non-projective"
        )


def _check_gold_tree(
    heads: Sequence[int], deprels: Sequence[str], words: Sequence[str] | None
) -> list[str]:
    """A projective tree with one deprel (and word) per word; returns the words
    (w1 … wn when None)."""
    check_tree(heads)
    if len(deprels) != len(heads):
        raise ValueError(
            f"need one deprel per word: {len(heads)} heads but {len(deprels)} deprels"
        )
    crossing = crossing_arcs(heads)
    if crossing:
        (h1, d1), (h2, d2) = crossing[0]
        raise NonProjectiveError(
            f"the tree is non-projective: arcs {h1}→{d1} and {h2}→{d2} cross "
            f"({len(crossing)} crossing pair(s)); the arc-standard system builds only "
            "projective trees (test with is_projective() to skip such sentences)"
        )
    n = len(heads)
    words = list(words) if words is not None else [f"w{i}" for i in range(1, n + 1)]
    if len(words) != n:
        raise ValueError(f"need one word per head: {n} heads but {len(words)} words")
    return words


def static_oracle(
    heads: Sequence[int],
    deprels: Sequence[str],
    words: Sequence[str] | None = None,
) -> list[Transition]:
    """The 2n gold transitions that build a tree (heads[i-1]: head of word i, 0: ROOT).

    Raises ValueError for a malformed tree (see ``check_tree``) or a ``deprels`` of the
    wrong length, and NonProjectiveError (a ValueError) naming the crossing arcs.
    """
    words = _check_gold_tree(heads, deprels, words)
    missing = [0] * (len(heads) + 1)  # missing[i]: gold dependents of i yet to attach
    for h in heads:
        missing[h] += 1
    config, transitions = Configuration.initial(words), []
    while not config.is_terminal():
        t = oracle_next(config, heads, deprels, missing)
        if t.kind != "SHIFT":  # the new arc's head has one dependent fewer to wait for
            head = config.stack[-1] if t.kind == "LEFT-ARC" else config.stack[-2]
            missing[head] -= 1
        transitions.append(t)
        config = config.apply(t)
    return transitions


def oracle_trace(
    words: Sequence[str], heads: Sequence[int], deprels: Sequence[str]
) -> list[tuple[Configuration, Transition | None]]:
    """Every configuration on the oracle's path and the transition taken from it.

    The lecture's table: ``trace_table(oracle_trace(**LECTURE_EXAMPLE without upos))``.
    """
    return replay(words, static_oracle(heads, deprels, words))


def gold_arrays(
    heads: Sequence[Sequence[int]],
    deprels: Sequence[Sequence[str]],
    system: TransitionSystem,
    n_positions: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gold trees as arrays for :func:`oracle_ids`: head, label index, dependent count. (B, P) each.

    Labels missing from ``system`` raise ValueError (build the system from the same data).
    """
    B = len(heads)
    gold_head = np.full((B, n_positions), -1, dtype=np.int64)  # (B, P)
    gold_label = np.full((B, n_positions), -1, dtype=np.int64)  # (B, P)
    gold_children = np.zeros((B, n_positions), dtype=np.int64)  # (B, P)
    index = {label: i for i, label in enumerate(system.labels)}
    for b, (hs, rs) in enumerate(zip(heads, deprels, strict=True)):
        n = len(hs)
        gold_head[b, 1 : n + 1] = hs
        try:
            gold_label[b, 1 : n + 1] = [index[r] for r in rs]
        except KeyError as err:
            raise ValueError(
                f"sentence {b} has the label {err.args[0]!r}, which the transition "
                "system does not know"
            ) from None
        np.add.at(gold_children[b], np.asarray(hs, dtype=np.int64), 1)
    return gold_head, gold_label, gold_children


def oracle_ids(
    state: BatchConfigurations,
    system: TransitionSystem,
    gold_head: np.ndarray,
    gold_label: np.ndarray,
    gold_children: np.ndarray,
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """The static oracle's transition id in each configuration of ``rows``. (R,)

    gold_*: from :func:`gold_arrays`. The same three rules as :func:`oracle_next`, as array
    operations; a stuck (non-projective) row gets SHIFT, which ``apply`` then rejects.
    """
    r = np.arange(len(state)) if rows is None else np.asarray(rows)
    s1, s2 = state.stack_top(1, r), state.stack_top(2, r)  # (R,), (R,)
    depth, empty = state.depth[r], state.next[r] > state.n[r]  # (R,), (R,)
    left = (depth >= 3) & (gold_head[r, s2] == s1)  # (R,)
    right = (
        (depth >= 2)
        & (gold_head[r, s1] == s2)
        & (state.n_children[r, s1] == gold_children[r, s1])
        & ((depth >= 3) | empty)
    )  # (R,)
    L = len(system.labels)
    ids = np.zeros(len(r), dtype=np.int64)  # (R,) SHIFT
    ids = np.where(right, 1 + L + gold_label[r, s1], ids)  # (R,)
    return np.where(left, 1 + gold_label[r, s2], ids)  # (R,)
