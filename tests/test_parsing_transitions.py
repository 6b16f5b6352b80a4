"""Arc-standard transitions: the lecture's trace, legality, errors naming the configuration."""

from __future__ import annotations

import numpy as np
import pytest

from course_lib.parsing import (
    LECTURE_EXAMPLE,
    SHIFT,
    Arc,
    Configuration,
    IllegalTransitionError,
    Transition,
    TransitionSystem,
    oracle_trace,
    replay,
    trace_table,
)

WORDS = LECTURE_EXAMPLE["words"]  # I ate fish


def test_the_lectures_i_ate_fish_trace_step_by_step():
    steps = oracle_trace(WORDS, LECTURE_EXAMPLE["heads"], LECTURE_EXAMPLE["deprels"])
    rows = trace_table(steps)
    got = [(r["stack"], r["buffer"], r["transition"], r["new arc"]) for r in rows]
    assert got == [
        ("[ROOT]", "[I ate fish]", "SHIFT", ""),
        ("[ROOT I]", "[ate fish]", "SHIFT", ""),
        ("[ROOT I ate]", "[fish]", "LEFT-ARC(nsubj)", "nsubj(ate → I)"),
        ("[ROOT ate]", "[fish]", "SHIFT", ""),
        ("[ROOT ate fish]", "[]", "RIGHT-ARC(obj)", "obj(ate → fish)"),
        ("[ROOT ate]", "[]", "RIGHT-ARC(root)", "root(ROOT → ate)"),
        ("[ROOT]", "[]", "", ""),
    ]
    final = steps[-1][0]
    assert final.is_terminal() and len(steps) == 2 * len(WORDS) + 1
    assert final.arcs == (Arc(2, 1, "nsubj"), Arc(2, 3, "obj"), Arc(0, 2, "root"))
    assert final.heads() == [2, 0, 2] and final.deprels() == ["nsubj", "root", "obj"]


def test_apply_is_pure_and_replay_takes_text():
    c0 = Configuration.initial(WORDS)
    c1 = c0.apply(SHIFT)
    assert c0.stack == (0,) and c0.buffer == (1, 2, 3)  # unchanged
    assert c1.stack == (0, 1) and c1.buffer == (2, 3)
    steps = replay(WORDS, ["SHIFT", "SHIFT", "RIGHT-ARC(x)"])
    assert steps[-1][0].arcs == (Arc(1, 2, "x"),) and steps[-1][1] is None
    assert str(steps[-1][0]) == "stack=[ROOT, I] buffer=[fish]"


def test_children_are_ordered_from_the_outside_in():
    c = Configuration(("ROOT", "a", "b", "c", "d", "e"), (0, 3), (), ())
    c = Configuration(
        c.words, c.stack, c.buffer, (Arc(3, 2, "x"), Arc(3, 1, "y"), Arc(3, 4, "z"))
    )
    assert c.children(3) == ([1, 2], [4])  # lc1 = 1, lc2 = 2; rc1 = 4


@pytest.mark.parametrize(
    ("prefix", "transition", "match"),
    [
        (
            [],
            "LEFT-ARC(nsubj)",
            r"LEFT-ARC\(nsubj\) is illegal in stack=\[ROOT\] "
            r"buffer=\[I, ate, fish\]: LEFT-ARC needs two items",
        ),
        (
            ["SHIFT"],
            "LEFT-ARC(nsubj)",
            r"stack=\[ROOT, I\].*would make ROOT a dependent",
        ),
        (
            ["SHIFT"],
            "RIGHT-ARC(root)",
            r"RIGHT-ARC from ROOT must wait for an empty buffer",
        ),
        (
            ["SHIFT"] * 3,
            "SHIFT",
            r"SHIFT is illegal in stack=\[ROOT, I, ate, fish\] "
            r"buffer=\[\]: SHIFT needs a word in the buffer",
        ),
    ],
)
def test_illegal_transitions_raise_naming_the_configuration(prefix, transition, match):
    config = replay(WORDS, prefix)[-1][0]
    with pytest.raises(IllegalTransitionError, match=match):
        config.apply(Transition.parse(transition))
    assert issubclass(IllegalTransitionError, ValueError)


def test_transition_text_round_trips_and_bad_text_is_rejected():
    for text in ("SHIFT", "LEFT-ARC(nsubj)", "RIGHT-ARC(acl:relcl)"):
        assert str(Transition.parse(text)) == text
    for bad in ("shift", "LEFT-ARC", "SHIFT(x)", "REDUCE"):
        with pytest.raises(ValueError, match="not a transition"):
            Transition.parse(bad)
    with pytest.raises(IllegalTransitionError, match="SHIFT takes no label"):
        Configuration.initial(WORDS).apply(Transition("SHIFT", "x"))
    with pytest.raises(ValueError, match="at least one word"):
        Configuration.initial([])


def test_system_numbers_2L_plus_1_transitions():
    system = TransitionSystem(["nsubj", "root", "obj"])
    assert len(system) == 7
    assert [str(t) for t in system.transitions] == [
        "SHIFT",
        "LEFT-ARC(nsubj)",
        "LEFT-ARC(root)",
        "LEFT-ARC(obj)",
        "RIGHT-ARC(nsubj)",
        "RIGHT-ARC(root)",
        "RIGHT-ARC(obj)",
    ]
    assert system.id("RIGHT-ARC(obj)") == 6 and system.id(SHIFT) == 0
    with pytest.raises(ValueError, match="not a transition of this system"):
        system.id("LEFT-ARC(amod)")
    with pytest.raises(ValueError, match="without repeats"):
        TransitionSystem(["a", "a"])


def test_legal_mask_matches_why_illegal_and_reserves_root():
    system = TransitionSystem(["nsubj", "root", "obj"])
    # every configuration on every path of 3 words: compare the mask with why_illegal
    frontier = [Configuration.initial(WORDS)]
    seen = 0
    while frontier:
        config = frontier.pop()
        mask = system.legal(config)
        for i, t in enumerate(system.transitions):
            structural = config.why_illegal(t) is None
            from_root = t.kind == "RIGHT-ARC" and config.stack[-2:-1] == (0,)
            label_ok = (t.label == "root") == from_root if t.kind != "SHIFT" else True
            assert mask[i] == (structural and label_ok), (str(config), str(t))
            if mask[i] and t.label in (None, "nsubj", "root"):
                frontier.append(config.apply(t))
        seen += 1
    assert seen > 20
    plain = TransitionSystem(["a"])  # no root label: any label from ROOT
    end = replay(WORDS, ["SHIFT"] * 3 + ["LEFT-ARC(a)"] * 2)[-1][0]
    assert plain.legal(end).tolist() == [False, False, True]
    batch = system.legal_mask(
        np.array([1, 2, 2, 3]), np.array([False, False, True, True])
    )
    assert batch.shape == (4, 7)
    assert batch[0].tolist() == [True] + [False] * 6  # only SHIFT from c0
    assert batch[2].tolist() == [False] * 5 + [True, False]  # only RIGHT-ARC(root)
