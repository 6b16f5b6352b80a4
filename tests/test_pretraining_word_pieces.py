"""One vector per word from its pieces (first, last, mean) and the linear probe (Chapter 9)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.pretraining import (
    POOLINGS,
    Encoder,
    EncoderConfig,
    linear_probe,
    pool_pieces,
    word_features,
    words_to_pieces,
)


def _by_loop(hidden, word_index, how):
    """The plain definition: gather each word's pieces, take the first, the last or the mean."""
    words = sorted({int(w) for w in word_index if w >= 0})
    out = []
    for w in words:
        rows = [hidden[i] for i in range(len(word_index)) if word_index[i] == w]
        out.append({"first": rows[0], "last": rows[-1]}.get(how, None))
        if how == "mean":
            out[-1] = torch.stack(rows).mean(0)
    return torch.stack(out)


@settings(max_examples=60)
@given(
    pieces=st.lists(st.integers(1, 4), min_size=1, max_size=8),
    specials=st.lists(st.integers(0, 9), max_size=3),
    how=st.sampled_from(POOLINGS),
    seed=st.integers(0, 2**16),
)
def test_pooling_matches_the_plain_definition(pieces, specials, how, seed):
    index = [w for w, n in enumerate(pieces) for _ in range(n)]
    for at in specials:  # [CLS], padding: pieces of no word, anywhere
        index.insert(min(at, len(index)), -1)
    index = torch.tensor(index)
    hidden = torch.randn(
        len(index),
        5,
        generator=torch.Generator().manual_seed(seed),
        dtype=torch.float64,
    )
    got = pool_pieces(hidden, index, how)
    want = _by_loop(hidden, index, how)
    assert got.shape == (len(pieces), 5)
    if how == "mean":
        torch.testing.assert_close(got, want, rtol=0, atol=1e-12)
    else:
        assert torch.equal(got, want)


def test_pooling_rejects_bad_input():
    h = torch.zeros(3, 2)
    with pytest.raises(ValueError, match="how must be one of"):
        pool_pieces(h, torch.tensor([0, 0, 1]), "max")
    with pytest.raises(ValueError, match="word 1 has no piece"):
        pool_pieces(h, torch.tensor([0, 2, 2]), "mean")
    with pytest.raises(ValueError, match=r"\(N, D\)"):
        pool_pieces(h, torch.tensor([0, 1]), "first")


class _Pieces:
    """A tokenizer stand-in: a word of n letters is n pieces, the letters' codes."""

    def encode(self, text):
        return type("E", (), {"ids": [ord(c) % 50 + 4 for c in text.strip()]})()


def test_words_to_pieces_and_features_match_one_sentence_at_a_time():
    sentences = [["ab", "c"], ["dddd", "e", "ff"], ["g"], ["x" * 30]]
    ids, index, kept = words_to_pieces(_Pieces(), sentences, cls_id=1, max_len=10)
    assert kept == [0, 1, 2]  # the 31-id sentence is left out
    assert index[0] == [-1, 0, 0, 1] and ids[0][0] == 1
    torch.manual_seed(0)
    enc = Encoder(
        EncoderConfig(
            vocab_size=60,
            d_model=16,
            n_heads=2,
            d_ff=32,
            n_layers=2,
            max_len=12,
            dropout=0.0,
            pad_id=0,
        )
    )
    batched = word_features(enc, ids, index, pad_id=0, batch_size=2)
    for how in POOLINGS:
        alone = torch.cat(
            [
                pool_pieces(
                    enc(torch.tensor([row]))[0][0].detach(), torch.tensor(of), how
                )
                for row, of in zip(ids, index)
            ]
        )
        assert batched[how].shape == (2 + 3 + 1, 16)
        torch.testing.assert_close(batched[how], alone, rtol=1e-5, atol=1e-5)


def test_linear_probe_reads_a_linearly_separable_label():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(600, 4, generator=g)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).long()
    state = torch.random.get_rng_state()
    pred = linear_probe(x[:400], y[:400], x[400:], n_classes=2, epochs=30, lr=0.1)
    assert torch.equal(torch.random.get_rng_state(), state)  # the global RNG untouched
    assert pred.shape == (200,) and (pred == y[400:]).float().mean() > 0.95
    again = linear_probe(x[:400], y[:400], x[400:], n_classes=2, epochs=30, lr=0.1)
    assert torch.equal(pred, again)  # seeded
    with pytest.raises(ValueError, match="same length"):
        linear_probe(x[:3], y[:2], x, n_classes=2)
