"""Chen & Manning's 48 features on hand-worked configurations; batched = one at a time."""

from __future__ import annotations

import random

import numpy as np
import pytest

from course_lib.data import Sentence
from course_lib.parsing import (
    FEATURE_NAMES,
    BatchConfigurations,
    batch_features,
    build_vocabs,
    config_features,
    replay,
)
from course_lib.parsing.features import NULL, POSITIONS, ROOT_ID, UNK

WORDS = ("The", "very", "big", "cat", "sat", "down", "quickly", ".")
TAGS = ("DET", "ADV", "ADJ", "NOUN", "VERB", "ADP", "ADV", "PUNCT")
HEADS = (4, 3, 4, 5, 0, 5, 5, 5)
DEPRELS = ("det", "advmod", "amod", "nsubj", "root", "compound:prt", "advmod", "punct")
SENTENCE = Sentence(WORDS, WORDS, TAGS, TAGS, HEADS, DEPRELS)
PATH = [  # the oracle's first 11 transitions, up to stack [ROOT sat quickly], buffer [.]
    "SHIFT",
    "SHIFT",
    "SHIFT",
    "LEFT-ARC(advmod)",
    "SHIFT",
    "LEFT-ARC(amod)",
    "LEFT-ARC(det)",
    "SHIFT",
    "LEFT-ARC(nsubj)",
    "SHIFT",
    "RIGHT-ARC(compound:prt)",
    "SHIFT",
]

# Ids, by the vocabulary rules (specials <null> <root> <unk>, then by frequency, ties
# alphabetically): words . big cat down quickly sat the very = 3..10; tags ADV (twice) = 3,
# then ADJ ADP DET NOUN PUNCT VERB = 4..9; labels advmod (twice) = 1, then amod
# compound:prt det nsubj punct root = 2..7.
W = {
    ".": 3,
    "big": 4,
    "cat": 5,
    "down": 6,
    "quickly": 7,
    "sat": 8,
    "the": 9,
    "very": 10,
}
T = {"ADV": 3, "ADJ": 4, "ADP": 5, "DET": 6, "NOUN": 7, "PUNCT": 8, "VERB": 9}
L = {"advmod": 1, "amod": 2, "compound:prt": 3, "det": 4, "nsubj": 5, "root": 7}
N = NULL

# After PATH: s1 quickly, s2 sat, s3 ROOT; b1 "."; quickly has no children; sat has
# lc1 cat, rc1 down and lc1(lc1(sat)) = lc1(cat) = The.
EXPECTED_A = (
    [W["quickly"], W["sat"], ROOT_ID, W["."], N, N]
    + [N] * 6
    + [W["cat"], W["down"], N, N, W["the"], N]
    + [T["ADV"], T["VERB"], ROOT_ID, T["PUNCT"], N, N]
    + [N] * 6
    + [T["NOUN"], T["ADP"], N, N, T["DET"], N]
    + [N] * 6
    + [L["nsubj"], L["compound:prt"], N, N, L["det"], N]
)
# After the first 7 transitions: stack [ROOT cat], buffer [sat down quickly .]; cat has
# left children The (lc1) and big (lc2); big's own child "very" is not among the features.
EXPECTED_B = (
    [W["cat"], ROOT_ID, N, W["sat"], W["down"], W["quickly"]]
    + [W["the"], N, W["big"], N, N, N]
    + [N] * 6
    + [T["NOUN"], ROOT_ID, N, T["VERB"], T["ADP"], T["ADV"]]
    + [T["DET"], N, T["ADJ"], N, N, N]
    + [N] * 6
    + [L["det"], N, L["amod"], N, N, N]
    + [N] * 6
)


@pytest.fixture(scope="module")
def vocabs():
    return build_vocabs([SENTENCE], min_freq=1)


def test_vocabulary_ids_are_the_hand_worked_ones(vocabs):
    assert {w: vocabs.words[w] for w in W} == W
    assert {t: vocabs.tags[t] for t in T} == T
    assert {r: vocabs.system.labels.index(r) + 1 for r in L} == L
    assert vocabs.words["never-seen"] == UNK
    assert len(FEATURE_NAMES) == 48 and len(POSITIONS) == 18
    assert (
        FEATURE_NAMES[16] == "w:lc1(lc1(s2))" and FEATURE_NAMES[47] == "l:rc1(rc1(s2))"
    )


@pytest.mark.parametrize(("n_steps", "expected"), [(12, EXPECTED_A), (7, EXPECTED_B)])
def test_features_of_a_hand_worked_configuration(vocabs, n_steps, expected):
    config = replay(WORDS, PATH[:n_steps])[-1][0]
    word_ids, tag_ids = vocabs.encode(WORDS, TAGS)
    assert config_features(config, word_ids, tag_ids, vocabs.system) == expected
    # the batched version, on the same configuration inside a batch of two
    state = BatchConfigurations([len(WORDS), 3])
    system = vocabs.system
    for t in PATH[:n_steps]:
        state.apply(np.array([system.id(t)]), system, rows=np.array([0]))
    wb, tb = vocabs.encode_batch([(WORDS, TAGS), (WORDS[:3], TAGS[:3])])
    assert batch_features(state, wb, tb)[0].tolist() == expected
    assert batch_features(state, wb, tb)[1].tolist()[:6] == [ROOT_ID, N, N, 9, 10, 4]


def test_batched_features_equal_one_configuration_at_a_time_on_random_paths(vocabs):
    rng = random.Random(0)
    system = vocabs.system
    sentences = [(WORDS[:n], TAGS[:n]) for n in (8, 5, 1, 3)]
    state = BatchConfigurations([len(w) for w, _ in sentences])
    configs = [replay(w, [])[-1][0] for w, _ in sentences]
    wb, tb = vocabs.encode_batch(sentences)
    checked = 0
    while not state.done().all():
        rows = np.flatnonzero(~state.done())
        got = batch_features(state, wb, tb, rows)
        ids = []
        for k, b in enumerate(rows):
            w, t = vocabs.encode(*sentences[b])
            assert got[k].tolist() == config_features(configs[b], w, t, system)
            legal = np.flatnonzero(system.legal(configs[b]))
            ids.append(int(rng.choice(list(legal))))
            configs[b] = configs[b].apply(system.transitions[ids[-1]])
            checked += 1
        state.apply(np.array(ids), system, rows)
    assert checked == 2 * sum(len(w) for w, _ in sentences)


def test_encode_checks_lengths_and_lowercases(vocabs):
    with pytest.raises(ValueError, match="one tag per word: 2 words but 1 tags"):
        vocabs.encode(["The", "cat"], ["DET"])
    w, t = vocabs.encode(["THE", "Cat"], ["DET", "NOUN"])
    assert w.tolist() == [ROOT_ID, W["the"], W["cat"]]
    assert t.tolist() == [ROOT_ID, T["DET"], T["NOUN"]]


def test_extra_words_get_rows_after_the_counted_ones():
    plain = build_vocabs([SENTENCE], min_freq=1)
    extra = build_vocabs(
        [SENTENCE], min_freq=1, extra_words=["Zebra", "the", "zebra", "yak"]
    )
    counted = plain.words.tokens
    assert extra.words.tokens == (*counted, "zebra", "yak")  # lower-cased, once each
    assert extra.words["zebra"] != UNK and plain.words["zebra"] == UNK
    assert extra.words.counts["zebra"] == 0
    # a word below min_freq keeps its training count (word dropout reads it)
    rare = build_vocabs([SENTENCE], min_freq=5, extra_words=[SENTENCE.words[0]])
    first = SENTENCE.words[0].lower()
    assert rare.words[first] != UNK
    assert rare.words.counts[first] == sum(w.lower() == first for w in SENTENCE.words)
    with pytest.raises(TypeError, match="not one string"):
        build_vocabs([SENTENCE], extra_words="zebra")
