"""Chapter 4 exercises (dependency parsing): the oracle, transitions, projectivity, UAS/LAS.

References: ``course_lib.parsing`` (``static_oracle``, ``is_projective``, ``attachment_scores``).
Questions on scores, transitions and projectivity at the end.
"""

from __future__ import annotations

import torch

from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.exercises.quiz import Question, register_questions
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


def random_projective_tree(gen: torch.Generator, n: int) -> list[int]:
    """A random projective tree over words 1..n: ``random_tree`` drawn until projective."""
    while True:
        heads = random_tree(gen, n)
        if is_projective(heads):
            return heads


def _oracle_kinds(heads):
    return [t.kind for t in static_oracle(heads, ["dep"] * len(heads))]


def _oracle_loop(heads, *, wait_for_dependents=True, swap_names=False):
    """The oracle's rules on plain lists; a broken rule stops where it gets stuck."""
    n = len(heads)
    stack, buffer, kinds = [0], list(range(1, n + 1)), []
    missing = [0] * (n + 1)  # missing[i]: gold dependents of i not yet attached
    for h in heads:
        missing[h] += 1
    left, right = ("RIGHT-ARC", "LEFT-ARC") if swap_names else ("LEFT-ARC", "RIGHT-ARC")
    while len(kinds) < 2 * n:
        s1, s2 = stack[-1], stack[-2] if len(stack) > 1 else None
        if s2 is not None and s2 != 0 and heads[s2 - 1] == s1:
            kinds.append(left)
            missing[s1] -= 1
            del stack[-2]
        elif s2 is not None and heads[s1 - 1] == s2:
            if wait_for_dependents and missing[s1]:
                if not buffer:
                    break
                kinds.append("SHIFT")
                stack.append(buffer.pop(0))
                continue
            kinds.append(right)
            missing[s2] -= 1
            stack.pop()
        elif buffer:
            kinds.append("SHIFT")
            stack.append(buffer.pop(0))
        else:
            break
    return kinds


def _oracle_cases(gen):
    cases = [
        Case((random_projective_tree(gen, _randint(gen, 3, 8)),), label=f"random {i}")
        for i in range(5)
    ]
    cases.append(Case(([0, 1, 2],), label="edge: a chain, each word heading the next"))
    cases.append(Case(([0],), label="edge: one word"))
    return cases


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
        "ch04.arc_standard_oracle",
        "arc_standard_oracle(heads: list[int]) -> list[str]",
        _oracle_kinds,
        _oracle_cases,
        "Stack [ROOT], buffer 1..n. LEFT-ARC when s₂ ≠ ROOT and head(s₂) = s₁; RIGHT-ARC "
        "when head(s₁) = s₂ and s₁ has all its dependents; SHIFT otherwise. Count each "
        "word's dependents still to attach.",
        (
            Mistake(
                "RIGHT-ARC pops s₁ before it has all its dependents",
                lambda heads: _oracle_loop(heads, wait_for_dependents=False),
            ),
            Mistake(
                "LEFT-ARC and RIGHT-ARC are exchanged (LEFT-ARC when s₂ heads s₁)",
                lambda heads: _oracle_loop(heads, swap_names=True),
            ),
        ),
    ),
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

register_questions(
    Question(
        "ch04.las",
        "A parser gets the head of 9 of 10 words right, and 7 of those 9 also have the "
        "right label. What is its LAS?",
        answer=0.7,
        explanation="LAS counts the words with the right head and the right label, out "
        "of all words: 7 / 10 (UAS is 9 / 10).",
        wrong={
            7
            / 9: "That divides by the words with a right head; LAS divides by all words.",
            0.63: "That multiplies 0.9 by 0.7; the 7 already have the right head.",
            0.9: "That is the UAS, which ignores the labels.",
        },
    ),
    Question(
        "ch04.third_transition",
        "The arc-standard oracle parses 'the dog barked' (dog heads the, barked heads "
        "dog, ROOT heads barked). What is its third transition?",
        answer="b",
        explanation="After SHIFT, SHIFT the stack is [ROOT, the, dog]: s₂ = the has head "
        "s₁ = dog, so LEFT-ARC(det), then SHIFT, LEFT-ARC(nsubj), RIGHT-ARC(root).",
        choices={"a": "SHIFT", "b": "LEFT-ARC", "c": "RIGHT-ARC"},
        wrong={
            "a": "The oracle makes an arc as soon as it can: on [ROOT, the, dog] the "
            "second word's head is the top, so LEFT-ARC comes before any SHIFT.",
            "c": "RIGHT-ARC would make dog a dependent of the; the arc goes the other way.",
        },
    ),
    Question(
        "ch04.which_nonprojective",
        "Which tree is non-projective? (heads[i − 1] is the head of word i, 0 is ROOT.)",
        answer="b",
        explanation="In [3, 4, 0, 3] the arcs 3 → 1 (over positions 1–3) and 4 → 2 "
        "(over 2–4) cross: 1 < 2 < 3 < 4.",
        choices={"a": "[2, 0, 2]", "b": "[3, 4, 0, 3]", "c": "[0, 1, 2, 3]"},
        wrong={
            "a": "Its arcs 2 → 1, ROOT → 2 and 2 → 3 meet at word 2 but do not cross.",
            "c": "A chain, each word heading the next: the arcs are nested end to end, "
            "none crosses another.",
        },
    ),
    Question(
        "ch04.english_crossing",
        "Which statement about non-projective trees is right?",
        answer="b",
        explanation="Crossing arcs are more frequent under freer word order, but English "
        "has them too: a few per cent of EWT's training sentences.",
        choices={
            "a": "they occur only in free-word-order languages, such as Chinese",
            "b": "English has them too, in a small share of its sentences",
            "c": "the arc-standard system builds them with enough SHIFTs",
        },
        wrong={
            "a": "Chinese has a fairly fixed SVO order, and English, with a fixed order, "
            "has non-projective sentences as well: Chapter 4 counts them in EWT.",
            "c": "Arcs are made only between the top two words of the stack, so nested "
            "arcs are all it can build: it builds only projective trees.",
        },
    ),
)
