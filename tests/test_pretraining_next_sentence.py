"""Next-sentence prediction's examples (Chapter 9)."""

from __future__ import annotations

import pytest

from course_lib.pretraining.next_sentence import (
    nsp_examples,
    nsp_ids,
    shared_word_share,
)


def _paragraphs(n=400, length=12):
    return [[1000 * p + t for t in range(length)] for p in range(n)]


def test_positives_continue_their_paragraph_and_negatives_come_from_another():
    paragraphs = _paragraphs() + [[7, 8]]  # too short: left out
    examples = nsp_examples(paragraphs, half=5, seed=3)
    assert len(examples) == 400
    for p, (label, (a, b)) in zip(paragraphs, examples):
        assert a == p[:5] and len(b) == 5
        if label == 1:
            assert b == p[5:10]
        else:
            assert (
                b[0] // 1000 != p[0] // 1000 and b[0] % 1000 == 5
            )  # another's 2nd half
    share = sum(label for label, _ in examples) / len(examples)
    assert abs(share - 0.5) < 0.1
    assert examples == nsp_examples(paragraphs, half=5, seed=3)  # seeded


def test_ids_and_overlap():
    assert nsp_ids(([4, 5], [6]), cls_id=1, sep_id=2) == [1, 4, 5, 2, 6, 2]
    assert shared_word_share(([1, 2, 3], [3, 4, 3, 9])) == 0.5
    assert shared_word_share(([1], [])) == 0.0


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="half must be"):
        nsp_examples(_paragraphs(), half=0)
    with pytest.raises(ValueError, match="at least 2 paragraphs"):
        nsp_examples(_paragraphs(1), half=5)
