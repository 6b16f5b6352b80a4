"""WordPiece: greedy longest-match-first identical to HF's WordPiece, the likelihood score."""

from __future__ import annotations

import pytest
from subwords_reference import hf_wordpiece

from course_lib.data import wikitext_lines
from course_lib.subwords import (
    Tokenizer,
    WordPiece,
    pair_scores,
    train_wordpiece,
    word_counts,
)

VOCAB = (
    "[UNK]",
    "[CLS]",
    "h",
    "u",
    "g",
    "s",
    "hug",
    "##s",
    "##g",
    "##u",
    "un",
    "##hug",
)


def test_greedy_longest_match_first():
    wp = WordPiece(VOCAB)
    assert wp.split("hugs") == ["hug", "##s"]
    assert wp.split("unhug") == ["un", "##hug"]
    assert wp.split("hugx") == ["[UNK]"]  # one piece missing: the whole word is unknown
    assert wp.split("x" * 101) == ["[UNK]"]


@pytest.fixture(scope="module")
def trained():
    return Tokenizer.train(
        wikitext_lines("train")[:600],
        kind="wordpiece",
        vocab_size=700,
        special_tokens=["[UNK]", "[CLS]", "[SEP]"],
    )


@pytest.mark.parametrize("pre", ["whitespace_split", "whitespace"])
def test_encoding_identical_to_hf_given_the_vocabulary(trained, pre):
    tok = Tokenizer(
        trained.model, kind="wordpiece", pre_tokenizer=pre, special_tokens=["[UNK]"]
    )
    hf = hf_wordpiece(trained.vocab, pre)
    for text in wikitext_lines("valid")[:80] + ["Zürich isn't x²; unhuggable"]:
        enc, ref = tok.encode(text), hf.encode(text)
        assert enc.pieces == ref.tokens
        assert enc.ids == ref.ids


def test_likelihood_score_differs_from_raw_count():
    counts = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    rows = pair_scores(counts)
    by_count = rows[0][0]
    by_score = max(rows, key=lambda r: (r[2], r[0]))[0]
    assert by_count == ("##u", "##g")  # BPE's choice: the most frequent pair
    assert dict((p, c) for p, c, _ in rows)[("##u", "##g")] == 20
    assert by_score == ("##g", "##s")  # WordPiece's: ##s occurs only after ##g
    # the score is count(ab) / (count(a) count(b))
    score = dict((p, s) for p, _, s in rows)[("##g", "##s")]
    assert score == pytest.approx(5 / (20 * 5))
    # 1 special + 7 initial pieces: vocab_size 9 is one merge, and WordPiece picks ##gs
    assert train_wordpiece(counts, 9).vocab[-1] == "##gs"


def test_trained_vocabulary(trained):
    assert trained.vocab[:3] == ("[UNK]", "[CLS]", "[SEP]")
    assert len(trained.vocab) == 700
    # the score favours pairs of rare parts: "Columbus" before "the" on this sample
    assert {"##s", "th", "Columbus"} <= set(
        trained.vocab
    ) and "the" not in trained.vocab
    enc = trained.encode("[CLS] the game [SEP]")
    assert enc.ids[0] == trained.special_id("[CLS]")
    assert trained.decode(trained.encode("the games were released").ids) == (
        "the games were released"
    )


def test_bad_input():
    with pytest.raises(ValueError, match="unk_token"):
        WordPiece(("a", "##b"))
    with pytest.raises(ValueError, match="non-empty"):
        train_wordpiece({}, 10)
    with pytest.raises(ValueError, match="below"):
        train_wordpiece(word_counts(["hello world"]), 3)
    with pytest.raises(ValueError, match="unk_token"):
        train_wordpiece(word_counts(["hello"]), 30, special_tokens=["[PAD]"])


def _naive_wordpiece(word_counts, vocab_size):
    """Recount everything after every merge: the definition, without any index."""
    segs = {w: [w[0], *("##" + c for c in w[1:])] for w in word_counts}
    vocab = ["[UNK]", *sorted({p for s in segs.values() for p in s})]
    while len(vocab) < vocab_size:
        units, pairs = {}, {}
        for w, s in segs.items():
            for p in s:
                units[p] = units.get(p, 0) + word_counts[w]
            for pair in zip(s, s[1:]):
                pairs[pair] = pairs.get(pair, 0) + word_counts[w]
        if not pairs:
            break
        ids = {p: i for i, p in enumerate(vocab)}
        a, b = max(
            pairs,
            key=lambda q: (
                pairs[q] / (units[q[0]] * units[q[1]]),
                -ids[q[0]],
                -ids[q[1]],
            ),
        )
        piece = a + b.removeprefix("##")
        if piece not in ids:
            vocab.append(piece)
        for w, s in segs.items():
            i, out = 0, []
            while i < len(s):
                if i + 1 < len(s) and (s[i], s[i + 1]) == (a, b):
                    out.append(piece)
                    i += 2
                else:
                    out.append(s[i])
                    i += 1
            segs[w] = out
    return tuple(vocab)


@pytest.mark.parametrize("seed", range(20))
def test_incremental_trainer_equals_recounting(seed):
    import random

    rng = random.Random(seed)
    counts = {
        "".join(rng.choice("abcd"[: 2 + seed % 3]) for _ in range(rng.randint(1, 7))): (
            rng.randint(1, 5)
        )
        for _ in range(rng.randint(3, 20))
    }
    initial = {p for w in counts for p in [w[0], *("##" + c for c in w[1:])]}
    size = 1 + len(initial) + rng.randint(0, 30)
    assert train_wordpiece(counts, size).vocab == _naive_wordpiece(counts, size)
