"""Chapter 4 exercises (dependency parsing): transitions, projectivity, UAS and LAS.

References: ``course_lib.parsing`` (``static_oracle``, ``is_projective``, ``attachment_scores``).
"""

from __future__ import annotations

import torch

from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.parsing.evaluation import attachment_scores
from course_lib.parsing.oracle import static_oracle
from course_lib.parsing.projectivity import is_projective

LABELS = ("nsubj", "obj", "det", "amod", "root")


def _randint(gen, lo, hi):
    return int(torch.randint(lo, hi, (1,), generator=gen))


def random_tree(gen: torch.Generator, n: int) -> list[int]:
    """A random dependency tree over words 1..n (heads[i-1] = head of word i, 0 = ROOT)."""
    order = (
        torch.randperm(n, generator=gen).add(1).tolist()
    )  # words in attachment order
    heads = [0] * n
    for k, word in enumerate(order):
        heads[word - 1] = 0 if k == 0 else order[_randint(gen, 0, k)]
    return heads


def _n_transitions(n):
    return len(static_oracle(list(range(n)), ["dep"] * n))  # a right-branching chain


def _scores(gold_heads, gold_labels, pred_heads, pred_labels):
    s = attachment_scores([(gold_heads, gold_labels)], [(pred_heads, pred_labels)])
    return (s.uas, s.las)


def _las_ignoring_heads(gold_heads, gold_labels, pred_heads, pred_labels):
    n = len(gold_heads)
    uas = sum(g == p for g, p in zip(gold_heads, pred_heads)) / n
    return (uas, sum(g == p for g, p in zip(gold_labels, pred_labels)) / n)


def _score_cases(gen):
    cases = []
    for i in range(4):
        n = _randint(gen, 3, 9)
        gold, pred = random_tree(gen, n), random_tree(gen, n)
        gl = [LABELS[_randint(gen, 0, 5)] for _ in range(n)]
        pl = [lab if _randint(gen, 0, 3) else "obj" for lab in gl]
        cases.append(Case((gold, gl, pred, pl), label=f"random {i}"))
    gold = [2, 0, 2]
    cases.append(
        Case(
            (gold, ["det", "root", "obj"], [3, 0, 2], ["det", "root", "obj"]),
            label="edge: right label, wrong head",
        )
    )
    return cases


def _crossings_without_root(heads):
    arcs = [tuple(sorted((h, d))) for d, h in enumerate(heads, start=1) if h != 0]
    return not any(a < c < b < d for a, b in arcs for c, d in arcs)


def _projective_cases(gen):
    cases = [
        Case((random_tree(gen, _randint(gen, 3, 8)),), label=f"random {i}")
        for i in range(8)
    ]
    cases.append(Case(([2, 0, 1],), label="edge: only ROOT's arc crosses another"))
    cases.append(Case(([0],), label="edge: one word"))
    return cases


register(
    Exercise(
        "ch04.n_transitions",
        "n_transitions(n: int) -> int",
        _n_transitions,
        lambda gen: [Case((n,), label=f"n = {n}") for n in (1, 2, 3, 5, 8, 13)],
        "Every word is shifted once and receives its head (one arc) once.",
        (Mistake("one transition short (2n − 1)", lambda n: 2 * n - 1),),
    ),
    Exercise(
        "ch04.attachment_scores",
        "attachment_scores(gold_heads, gold_labels, pred_heads, pred_labels) -> (uas, las)",
        _scores,
        _score_cases,
        "UAS: the fraction of words with the right head; LAS: right head AND right label.",
        (Mistake("LAS counts a right label on a wrong head", _las_ignoring_heads),),
    ),
    Exercise(
        "ch04.is_projective",
        "is_projective(heads: list[int]) -> bool",
        is_projective,
        _projective_cases,
        "Two arcs with spans a < b and c < d cross when a < c < b < d; ROOT's arc spans "
        "(0, root word) and counts too.",
        (
            Mistake(
                "ROOT's arc is left out of the crossing test", _crossings_without_root
            ),
        ),
    ),
)
