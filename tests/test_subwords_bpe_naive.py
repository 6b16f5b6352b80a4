"""The plain BPE loop (recount every pair after every merge) learns exactly the merges of
the incremental trainer, ties included, on small corpora."""

from __future__ import annotations

import random

import pytest
from subwords_reference import random_corpus

from course_lib.data import wikitext_lines
from course_lib.subwords import merge_pair, train_bpe, train_bpe_naive, word_counts


def _same(counts, vocab_size):
    naive = train_bpe_naive(counts, vocab_size)
    assert naive == list(train_bpe(counts, vocab_size).merges)
    return naive


def test_merge_pair_left_to_right():
    assert merge_pair([0, 0, 0], 0, 0, 9) == [9, 0]
    assert merge_pair([0, 0, 0, 0], 0, 0, 9) == [9, 9]
    assert merge_pair([1, 2, 3, 1, 2], 1, 2, 7) == [7, 3, 7]
    assert merge_pair([1], 1, 2, 7) == [1]
    assert merge_pair([], 1, 2, 7) == []


def test_hand_made_corpora():
    # Sennrich et al.'s example: low, lower, newest, widest
    counts = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    merges = _same(counts, 30)
    assert merges[:3] == [("e", "s"), ("es", "t"), ("l", "o")]
    # every word one piece: training stops before vocab_size
    assert _same({"ab": 1}, 10) == [("a", "b")]
    assert _same({"a": 3, "b": 1}, 10) == []


def test_ties_broken_by_ids_not_by_first_occurrence():
    # (z, b) occurs first and as often as (a, b): the smaller ids (a < z) win
    assert _same({"zb": 2, "ab": 2}, 6)[0] == ("a", "b")
    # runs of one letter: overlapping pairs (a, a) merge left to right
    _same({"aaaa": 3, "aaa": 2, "aaaaa": 1}, 10)


@pytest.mark.parametrize("seed", range(16))
def test_random_corpora_with_many_ties(seed):
    rng = random.Random(seed)
    alphabet = "abcde" if seed % 2 else "ab"
    lines = random_corpus(rng, alphabet, max_word=9, lines=30)
    _same(word_counts(lines, "whitespace_split"), rng.randint(10, 80))


@pytest.mark.parametrize("pre", ["whitespace_split", "byte_level"])
def test_wikitext_sample(pre):
    counts = word_counts(wikitext_lines("train")[:120], pre)
    alphabet = {c for word in counts for c in word}
    assert len(_same(counts, len(alphabet) + 120)) == 120
