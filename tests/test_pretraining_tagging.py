"""Fine-tuning an encoder as a first-piece tagger (Chapter 9): positions, batches, the head
against its definition, and a tagger that learns a tag it can read off the word."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from course_lib.pretraining import (
    Encoder,
    EncoderConfig,
    PieceTagger,
    fine_tune_tagger,
    first_pieces,
    pool_pieces,
    tagging_batches,
    words_to_pieces,
)


class _Pieces:
    """A tokenizer stand-in: a word of n letters is n pieces, the letters' codes."""

    def encode(self, text):
        return SimpleNamespace(ids=[ord(c) % 50 + 4 for c in text.strip()])


CONFIG = EncoderConfig(
    vocab_size=60, d_model=16, n_heads=2, d_ff=32, n_layers=1, max_len=16, dropout=0.0
)


def test_first_pieces_are_the_first_of_each_word():
    assert first_pieces([[-1, 0, 0, 1], [-1, 0, 1, 1, 1, 2]]) == [[1, 3], [1, 2, 5]]
    with pytest.raises(ValueError, match="must run 0, 1, 2"):
        first_pieces([[-1, 1, 1]])


def test_head_reads_each_words_first_piece_in_batches():
    sentences = [["ab", "c"], ["dddd", "e", "ff"], ["g"]]
    ids, index, _ = words_to_pieces(_Pieces(), sentences, cls_id=1, max_len=16)
    firsts = first_pieces(index)
    tags = [[0, 1], [2, 0, 1], [2]]
    torch.manual_seed(0)
    tagger = PieceTagger(Encoder(CONFIG), 16, 3).eval()
    batches = tagging_batches(
        ids, firsts, tags, pad_id=0, batch_size=2, order=[2, 0, 1]
    )
    assert [b[0].shape[0] for b in batches] == [2, 1]
    gold = torch.cat([b[3] for b in batches])
    assert gold.tolist() == [2, 0, 1, 2, 0, 1]  # sentences 2, 0, 1, words in order
    got = torch.cat([tagger(*b[:3]) for b in batches]).detach()
    want = []  # one sentence at a time, the first-piece pooling of word_pieces
    for s in (2, 0, 1):
        hidden = tagger.encoder(torch.tensor([ids[s]]))[0][0]
        want.append(tagger.head(pool_pieces(hidden, torch.tensor(index[s]), "first")))
    torch.testing.assert_close(got, torch.cat(want).detach(), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="sentence 0: 2 words but 1 tags"):
        tagging_batches(ids, firsts, [[0], [0, 0, 0], [0]], pad_id=0, batch_size=2)


def test_fine_tuning_learns_a_tag_the_word_shows():
    # the tag of a word: whether its first letter is in a-d or e-h; 40 short sentences
    rng = np.random.default_rng(0)
    letters = "abcdefgh"

    def sentence():
        words = [
            "".join(rng.choice(list(letters), rng.integers(1, 4))) for _ in range(4)
        ]
        return SimpleNamespace(
            words=words, upos=["S" if w[0] < "e" else "L" for w in words]
        )

    train, dev = [sentence() for _ in range(40)], [sentence() for _ in range(20)]
    kw = dict(cls_id=1, pad_id=0, max_len=16, lr=3e-3, batch_size=8, seed=0)
    torch.manual_seed(0)
    right = fine_tune_tagger(
        Encoder(CONFIG), _Pieces(), train, dev, {"S": 0, "L": 1}, epochs=15, **kw
    )
    assert right.shape == (80,) and right.dtype == bool
    assert right.mean() > 0.9
    torch.manual_seed(0)
    again = fine_tune_tagger(
        Encoder(CONFIG), _Pieces(), train, dev, {"S": 0, "L": 1}, epochs=15, **kw
    )
    assert np.array_equal(right, again)  # seeded
    with pytest.raises(ValueError, match="needs training and dev"):
        fine_tune_tagger(Encoder(CONFIG), _Pieces(), [], dev, {}, epochs=1, **kw)
