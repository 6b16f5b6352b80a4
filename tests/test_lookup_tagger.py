"""The most-frequent-tag lookup against counting by hand, over random tagged sentences."""

from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from course_lib.backprop import LookupTagger

WORDS = st.sampled_from(["the", "run", "dog", "runs", "a", "light"])
TAGS = st.sampled_from(["DET", "NOUN", "VERB", "ADJ"])
SENTENCE = st.lists(st.tuples(WORDS, TAGS), min_size=1, max_size=8).map(
    lambda pairs: SimpleNamespace(
        words=[w for w, _ in pairs], upos=[t for _, t in pairs]
    )
)


def by_hand(pairs, word):
    # the tag seen most often with word, the first seen among equals; None if unseen
    tags = [t for w, t in pairs if w == word]
    if not tags:
        return None
    first_seen = list(dict.fromkeys(tags))
    return max(first_seen, key=lambda t: (tags.count(t), -first_seen.index(t)))


@given(st.lists(SENTENCE, min_size=1, max_size=6), st.lists(WORDS, max_size=10))
def test_each_word_gets_its_most_frequent_tag(train, words):
    tagger = LookupTagger.fit(train)
    pairs = [(w, t) for s in train for w, t in zip(s.words, s.upos)]
    overall = by_hand([("*", t) for _, t in pairs], "*")
    expected = [by_hand(pairs, w) or overall for w in words]
    assert tagger.tag(words) == expected


@given(st.lists(SENTENCE, min_size=1, max_size=6), st.lists(SENTENCE, max_size=4))
def test_right_compares_the_lookup_with_the_gold_tags(train, dev):
    tagger = LookupTagger.fit(train)
    expected = [g == p for s in dev for g, p in zip(s.upos, tagger.tag(s.words))]
    assert tagger.right(dev) == expected


def test_a_worked_example():
    train = [
        SimpleNamespace(words=["the", "run", "ends"], upos=["DET", "NOUN", "VERB"]),
        SimpleNamespace(words=["they", "run"], upos=["PRON", "VERB"]),
        SimpleNamespace(words=["a", "run"], upos=["DET", "NOUN"]),
    ]
    tagger = LookupTagger.fit(train)
    assert tagger.tag(["run", "the", "walks"]) == [
        "NOUN",
        "DET",
        "DET",
    ]  # 2 of 3; unseen


def test_bad_input_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="at least one tagged word"):
        LookupTagger.fit([])
    with pytest.raises(ValueError, match="2 words but 1 tags"):
        LookupTagger.fit([SimpleNamespace(words=["a", "b"], upos=["DET"])])
