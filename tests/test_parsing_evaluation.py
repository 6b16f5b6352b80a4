"""UAS and LAS: the lecture's worked example, punctuation, the per-relation table, error kinds."""

from __future__ import annotations

import pytest

from course_lib.data import Sentence
from course_lib.parsing import (
    LECTURE_EVAL_EXAMPLE,
    Parse,
    attachment_scores,
    error_types,
    head_hits,
    relation_errors,
)

EX = LECTURE_EVAL_EXAMPLE
GOLD = (EX["gold_heads"], EX["gold_deprels"])
PRED = Parse(EX["pred_heads"], EX["pred_deprels"])


def test_the_lectures_example_is_80_and_40_percent():
    # She saw the video lecture: "the" gets head 4 instead of 5 (UAS 4/5); "video" and
    # "lecture" keep their heads but get nsubj/ccomp for compound/obj (LAS 2/5).
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
    assert [r.relation for r in rows] == ["compound", "det", "nsubj", "obj", "root"]
    assert (
        table["det"].count == 2 and table["det"].uas == 0.5 and table["det"].las == 0.5
    )
    assert table["compound"].uas == 1.0 and table["compound"].las == 0.5
    assert (
        table["compound"].confused_with == "nsubj"
        and table["obj"].confused_with == "ccomp"
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


def _sentence(words, upos, heads, deprels):
    return Sentence(words, words, upos, ("_",) * len(words), heads, deprels)


# The troops fired into the crowd , killing 4 .
FIRED = _sentence(
    ("The", "troops", "fired", "into", "the", "crowd", ",", "killing", "4", "."),
    ("DET", "NOUN", "VERB", "ADP", "DET", "NOUN", "PUNCT", "VERB", "NUM", "PUNCT"),
    (2, 3, 0, 6, 6, 3, 8, 3, 8, 3),
    ("det", "nsubj", "root", "case", "det", "obl", "punct", "advcl", "obj", "punct"),
)
# Sam 's dog barked later , and Al ran . ("Sam" is nmod:poss: its case marker is a PART)
DOG = _sentence(
    ("Sam", "'s", "dog", "barked", "later", ",", "and", "Al", "ran", "."),
    (
        "PROPN",
        "PART",
        "NOUN",
        "VERB",
        "ADV",
        "PUNCT",
        "CCONJ",
        "PROPN",
        "VERB",
        "PUNCT",
    ),
    (3, 1, 4, 0, 4, 9, 9, 9, 4, 4),
    (
        "nmod:poss",
        "case",
        "nsubj",
        "root",
        "advmod",
        "punct",
        "cc",
        "nsubj",
        "conj",
        "punct",
    ),
)


def test_error_kinds_by_hand():
    # crowd (a PP) attached to troops, killing (a clause) to crowd, the full stop to killing
    fired = Parse((2, 3, 0, 6, 6, 2, 8, 6, 8, 8), FIRED.deprels)
    # later (a modifier) to dog, ran (a conjunct) to Al, Sam to barked
    dog = Parse((4, 1, 4, 0, 3, 9, 9, 9, 8, 4), DOG.deprels)
    rows = error_types([FIRED, DOG], [fired, dog])
    table = {r.kind: r for r in rows}
    assert [r.kind for r in rows] == [
        "clause",
        "coordination",
        "modifier",
        "other",
        "prepositional phrase",
        "punctuation",
    ]
    assert {k: (r.words, r.errors) for k, r in table.items()} == {
        "clause": (1, 1),
        "coordination": (2, 1),  # and (cc), ran (conj)
        "modifier": (1, 1),
        "other": (11, 1),  # Sam's nmod:poss has a PART for its case: not a PP
        "prepositional phrase": (1, 1),
        "punctuation": (4, 1),
    }
    assert table["punctuation"].error_rate == pytest.approx(1 / 4)
    assert sum(r.share for r in rows) == pytest.approx(1.0)
    assert table["clause"].share == pytest.approx(1 / 6)
    # the head errors are those attachment_scores counts
    scores = attachment_scores([FIRED, DOG], [fired, dog])
    assert sum(r.errors for r in rows) == scores.n_words - scores.n_heads_correct
    assert sum(r.words for r in rows) == scores.n_words


def test_error_kinds_of_a_perfect_parse_and_bad_input():
    rows = error_types([FIRED], [(FIRED.heads, FIRED.deprels)])
    assert all(r.errors == 0 and r.share == 0.0 for r in rows)
    with pytest.raises(TypeError, match="needs .upos"):
        error_types([GOLD], [PRED])
    with pytest.raises(ValueError, match="one prediction per gold sentence"):
        error_types([FIRED], [])
    with pytest.raises(ValueError, match="sentence 0: gold has 10 heads"):
        error_types([FIRED], [PRED])


def test_head_hits_per_sentence_and_selected_words():
    fired = Parse((2, 3, 0, 6, 6, 2, 8, 6, 8, 8), FIRED.deprels)
    dog = Parse((4, 1, 4, 0, 3, 9, 9, 9, 8, 4), DOG.deprels)
    hits, scored = head_hits([FIRED, DOG], [fired, dog])
    assert hits.tolist() == [7, 7] and scored.tolist() == [10, 10]
    scores = attachment_scores([FIRED, DOG], [fired, dog])
    assert hits.sum() / scored.sum() == pytest.approx(scores.uas)
    # only the capitalised words: The (right); Sam (wrong), Al (right)
    hits, scored = head_hits([FIRED, DOG], [fired, dog], select=str.istitle)
    assert hits.tolist() == [1, 1] and scored.tolist() == [1, 2]
    with pytest.raises(TypeError, match="needs .words"):
        head_hits([GOLD], [PRED], select=str.istitle)
    with pytest.raises(ValueError, match="one prediction per gold sentence"):
        head_hits([FIRED], [])
