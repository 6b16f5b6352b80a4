"""Well-formed trees, projectivity and the static oracle (one sentence and batched)."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from course_lib.parsing import (
    LECTURE_EXAMPLE,
    BatchConfigurations,
    IllegalTransitionError,
    NonProjectiveError,
    TransitionSystem,
    check_tree,
    count_nonprojective,
    crossing_arcs,
    is_projective,
    replay,
    static_oracle,
)
from course_lib.parsing.oracle import gold_arrays, oracle_ids

# "A hearing is scheduled on the issue today" (a classic non-projective sentence): the
# phrase "on the issue" (5-7) depends on "hearing" (2) across the verb "scheduled" (4).
NONPROJ_HEADS = (2, 4, 4, 0, 7, 7, 2, 4)


@pytest.mark.parametrize(
    ("heads", "match"),
    [
        (
            (2, 0, 0),
            r"exactly one word whose head is ROOT \(0\); found 2: words \[2, 3\]",
        ),
        ((2, 3, 1), r"exactly one .* found 0"),
        ((0, 3, 2), r"words \[2, 3\] form a cycle"),
        ((2, 0, 7), r"head of word 3 is 7, out of range 0\.\.3"),
        ((2, 0, -1), r"head of word 3 is -1, out of range"),
        ((1, 0), r"word 1 is its own head"),
        ((), r"empty"),
        ((2, 0, "x"), r"head of word 3 is 'x', not an integer"),
    ],
)
def test_malformed_trees_are_value_errors_naming_the_words(heads, match):
    with pytest.raises(ValueError, match=match):
        check_tree(heads)
    with pytest.raises(ValueError, match=match):
        static_oracle(heads, ["x"] * len(heads))


def test_crossing_arcs_and_projectivity():
    assert crossing_arcs(NONPROJ_HEADS) == [((0, 4), (2, 7)), ((2, 7), (4, 8))]
    assert not is_projective(NONPROJ_HEADS)
    assert is_projective(LECTURE_EXAMPLE["heads"])
    assert is_projective((0,))
    assert count_nonprojective([NONPROJ_HEADS, (2, 0), (0, 1)]) == 1
    # root arc counts: 1 → 3 crosses ROOT's arc 0 → 2
    assert crossing_arcs((3, 0, 2)) == [((0, 2), (3, 1))]


def test_non_projective_tree_raises_naming_the_crossing_arcs():
    with pytest.raises(
        NonProjectiveError, match=r"arcs 0→4 and 2→7 cross \(2 crossing"
    ):
        static_oracle(NONPROJ_HEADS, ["dep"] * 8)
    assert issubclass(NonProjectiveError, ValueError)


def _random_projective_tree(n: int, rng: random.Random) -> list[int]:
    """A random projective tree: attach each span's words inside the span (recursive)."""
    heads = [0] * n

    def build(lo: int, hi: int, head: int) -> None:  # words lo..hi hang under head
        if lo > hi:
            return
        root = rng.randint(lo, hi)
        heads[root - 1] = head
        build(lo, root - 1, root)
        build(root + 1, hi, root)

    build(1, n, 0)
    return heads


def test_oracle_rebuilds_random_projective_trees_in_2n_steps():
    rng = random.Random(0)
    for n in itertools.chain(range(1, 9), [20, 40]):
        heads = _random_projective_tree(n, rng)
        labels = [rng.choice(["a", "b", "c"]) for _ in heads]
        labels[heads.index(0)] = "root"
        transitions = static_oracle(heads, labels)
        assert len(transitions) == 2 * n
        final = replay([f"w{i}" for i in range(n)], transitions)[-1][0]
        assert final.is_terminal()
        assert final.heads() == heads and final.deprels() == labels


def test_batched_oracle_agrees_with_the_one_sentence_oracle():
    rng = random.Random(1)
    system = TransitionSystem(["a", "b", "root"])
    trees = []
    for n in [1, 2, 5, 9, 13, 3]:
        heads = _random_projective_tree(n, rng)
        labels = [rng.choice("ab") for _ in heads]
        labels[heads.index(0)] = "root"
        trees.append((heads, labels))
    state = BatchConfigurations([len(h) for h, _ in trees])
    gold = gold_arrays([h for h, _ in trees], [r for _, r in trees], system, 15)
    paths: list[list[int]] = [[] for _ in trees]
    while not state.done().all():
        rows = np.flatnonzero(~state.done())
        ids = oracle_ids(state, system, *gold, rows)
        for b, i in zip(rows, ids, strict=True):
            paths[b].append(int(i))
        state.apply(ids, system, rows)
    for b, (heads, labels) in enumerate(trees):
        assert paths[b] == [system.id(t) for t in static_oracle(heads, labels)]
        assert state.heads(b) == heads and state.labels(b, system) == labels


def test_batch_apply_rejects_illegal_transitions_naming_the_sentence():
    system = TransitionSystem(["a", "root"])
    state = BatchConfigurations([2, 1])
    with pytest.raises(
        IllegalTransitionError,
        match=r"LEFT-ARC\(a\) is illegal in "
        r"sentence 1 of the batch, stack=\[ROOT\] buffer=\[w1\]",
    ):
        state.apply(np.array([0, 1]), system)
    assert state.depth.tolist() == [1, 1]  # nothing changed
    state.apply(np.array([0]), system, rows=np.array([1]))
    with pytest.raises(
        IllegalTransitionError,
        match=r"SHIFT is illegal in sentence 1 "
        r"of the batch, stack=\[ROOT, w1\] buffer=\[\]: SHIFT needs",
    ):
        state.apply(np.array([0]), system, rows=np.array([1]))
    with pytest.raises(ValueError, match="word counts >= 1"):
        BatchConfigurations([3, 0])
