"""The chapter's measurements: unknown share, tokens per word, embedding parameters."""

from __future__ import annotations

import pytest

from course_lib.data import wikitext_tokens
from course_lib.subwords import (
    Tokenizer,
    embedding_parameters,
    tokens_per_word,
    unknown_share,
    word_vocabulary,
)


def test_unknown_share_counts_outside_words_and_unk():
    vocab = word_vocabulary("a a a b b c <unk>".split(), min_count=2)
    assert vocab == {"a", "b"}
    assert unknown_share("a b c d <unk>".split(), vocab) == pytest.approx(3 / 5)
    assert word_vocabulary("a a b b c".split(), max_size=1) == {"a"}  # ties: sorted


def test_unknown_share_on_wikitext():
    train, test = wikitext_tokens("train"), wikitext_tokens("test")
    full = unknown_share(test, word_vocabulary(train))
    small = unknown_share(test, word_vocabulary(train, max_size=5000))
    assert 0.02 < full < small < 0.2  # WikiText-2 has written its rare words as <unk>


def test_tokens_per_word_falls_with_vocabulary_size():
    lines = [" ".join(wikitext_tokens("valid")[:20000])]
    words = wikitext_tokens("test")[:3000]
    fertility = [
        tokens_per_word(Tokenizer.train(lines, kind="byte_bpe", vocab_size=v), words)
        for v in (300, 1000, 3000)
    ]
    assert fertility[0] > fertility[1] > fertility[2] >= 1


def test_embedding_parameters():
    assert embedding_parameters(10, 4) == 10 * 4 + 10 * 4 + 10
    assert embedding_parameters(10, 4, tied=True) == 10 * 4 + 10


def test_bad_input():
    with pytest.raises(ValueError, match="empty"):
        unknown_share([], {"a"})
    with pytest.raises(ValueError, match="empty"):
        tokens_per_word(None, [])
    with pytest.raises(ValueError, match="min_count"):
        word_vocabulary(["a"], min_count=0)
    with pytest.raises(ValueError, match="d_model"):
        embedding_parameters(10, 0)
