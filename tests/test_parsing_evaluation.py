"""UAS and LAS: the lecture's worked example, punctuation, the per-relation table."""

from __future__ import annotations

import pytest

from course_lib.data import Sentence
from course_lib.parsing import (
    LECTURE_EVAL_EXAMPLE,
    Parse,
    attachment_scores,
    relation_errors,
)

EX = LECTURE_EVAL_EXAMPLE
GOLD = (EX["gold_heads"], EX["gold_deprels"])
PRED = Parse(EX["pred_heads"], EX["pred_deprels"])


def test_the_lectures_example_is_80_and_40_percent():
    # She saw the video lecture: "the" gets head 4 instead of 5 (UAS 4/5); "video" and
    # "lecture" keep their heads but get nsubj/ccomp for nn/obj (LAS 2/5).
    scores = attachment_scores([GOLD], [PRED])
    assert (scores.uas, scores.las) == (0.8, 0.4)
    assert (scores.n_words, scores.n_heads_correct, scores.n_both_correct) == (5, 4, 2)
    assert str(scores) == "UAS 80.00 %  LAS 40.00 %  (5 words)"
    assert attachment_scores([GOLD], [GOLD]).las == 1.0


def test_hand_computed_micro_average_and_punctuation():
    words = ("Hi", ",", "Sam", "!")
    gold = Sentence(
        words,
        words,
        ("INTJ", "PUNCT", "PROPN", "PUNCT"),
        ("_",) * 4,
        (0, 1, 1, 1),
        ("root", "punct", "vocative", "punct"),
    )
    pred = Parse((0, 3, 1, 3), ("root", "punct", "obj", "punct"))
    # with punctuation: heads right for Hi, Sam (2 of 4), head + label for Hi only
    both = attachment_scores([gold, GOLD], [pred, PRED])
    assert (both.n_words, both.n_heads_correct, both.n_both_correct) == (9, 6, 3)
    assert both.uas == pytest.approx(6 / 9) and both.las == pytest.approx(3 / 9)
    no_punct = attachment_scores([gold], [pred], include_punct=False)
    assert (no_punct.n_words, no_punct.uas, no_punct.las) == (2, 1.0, 0.5)
    # UPOS PUNCT alone marks punctuation too (when the gold has tags)
    odd = Sentence(
        ("x", "."), ("x", "."), ("X", "PUNCT"), ("_",) * 2, (0, 1), ("root", "dep")
    )
    assert (
        attachment_scores([odd], [((0, 0), ("root", "dep"))], include_punct=False).uas
        == 1
    )


def test_relation_table():
    rows = relation_errors([GOLD, GOLD], [PRED, GOLD])
    table = {r.relation: r for r in rows}
    assert [r.relation for r in rows] == ["det", "nn", "nsubj", "obj", "root"]
    assert (
        table["det"].count == 2 and table["det"].uas == 0.5 and table["det"].las == 0.5
    )
    assert table["nn"].uas == 1.0 and table["nn"].las == 0.5
    assert (
        table["nn"].confused_with == "nsubj" and table["obj"].confused_with == "ccomp"
    )
    assert table["root"].confused_with == ""


def test_bad_input_is_explained():
    with pytest.raises(ValueError, match="one prediction per gold sentence: 1 gold, 2"):
        attachment_scores([GOLD], [PRED, PRED])
    with pytest.raises(ValueError, match="sentence 0: gold has 5 heads"):
        attachment_scores([GOLD], [((2, 0), ("a", "b"))])
    with pytest.raises(TypeError, match=r"predicted\[0\] must have .heads"):
        attachment_scores([GOLD], [42])
    with pytest.raises(ValueError, match="no words to score"):
        attachment_scores([], [])
