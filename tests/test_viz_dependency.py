"""dependency_arcs (course_lib.parsing.draw): arcs above, gold arcs below, the colours of
right and wrong arcs, words without a head yet, bad input."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest
from matplotlib.colors import to_rgba

from course_lib.parsing import LECTURE_EVAL_EXAMPLE as EV
from course_lib.parsing.draw import CORRECT, WRONG_HEAD, WRONG_LABEL, dependency_arcs


def test_predicted_arcs_above_gold_below_coloured_by_correctness():
    ax = dependency_arcs(
        EV["words"],
        EV["pred_heads"],
        EV["pred_deprels"],
        gold_heads=EV["gold_heads"],
        gold_labels=EV["gold_deprels"],
    )
    assert len(ax.patches) == 10  # 5 predicted arcs above, 5 gold arcs below
    colours = {tuple(p.get_edgecolor()) for p in ax.patches[:5]}
    assert colours == {to_rgba(c) for c in (CORRECT, WRONG_LABEL, WRONG_HEAD)}
    key = {
        t.get_text(): h.get_color()
        for t, h in zip(ax.get_legend().get_texts(), ax.get_legend().legend_handles)
    }
    assert key["head and label right"] == CORRECT and key["head wrong"] == WRONG_HEAD
    assert key["head right, label wrong"] == WRONG_LABEL and "gold (below)" in key
    plt.close(ax.figure)
    ax = dependency_arcs(EV["words"], EV["gold_heads"])  # no gold to compare: no key
    assert ax.get_legend() is None
    plt.close(ax.figure)


def test_no_head_yet_draws_no_arc_and_bad_input():
    ax = dependency_arcs(["a", "b"], [-1, 0], title="partial")
    assert len(ax.patches) == 1 and ax.get_title() == "partial"
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="one head"):
        dependency_arcs(["a", "b"], [0])
    with pytest.raises(ValueError, match="gold_heads needs 2"):
        dependency_arcs(["a", "b"], [0, 1], gold_heads=[0])


def test_phrase_tree_puts_each_phrase_over_its_words():
    from course_lib.parsing import LECTURE_EXAMPLE
    from course_lib.parsing.draw import LECTURE_PHRASES, phrase_tree, tree_leaves

    assert tree_leaves(LECTURE_PHRASES) == list(LECTURE_EXAMPLE["words"])
    ax = phrase_tree(LECTURE_PHRASES, title="I ate fish")
    at = {t.get_text(): t.get_position() for t in ax.texts}
    assert [at[w][0] for w in ("I", "ate", "fish")] == [0, 1, 2]
    assert at["S"][1] == 4 and at["VP"][0] == (at["VBD"][0] + at["NP"][0]) / 2
    assert len(ax.lines) == 9  # one line per parent-child pair: 10 nodes, 9 edges
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="at least one child"):
        phrase_tree(("S",))


def test_highlighted_arcs_are_red_and_thicker():
    ax = dependency_arcs(EV["words"], EV["gold_heads"], highlight={3, 4})
    by_width = {p.get_linewidth(): to_rgba(p.get_edgecolor()) for p in ax.patches}
    widths = sorted(p.get_linewidth() for p in ax.patches)
    assert widths == [1.2, 1.2, 1.2, 2.4, 2.4]
    assert by_width[2.4] == to_rgba(WRONG_HEAD)
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="highlight holds words 1..5"):
        dependency_arcs(EV["words"], EV["gold_heads"], highlight={6})
