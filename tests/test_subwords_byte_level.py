"""Byte-level BPE: GPT-2's byte map, parity with HF's ByteLevel BPE, exact round-trips."""

from __future__ import annotations

import random

import pytest
from subwords_reference import hf_bpe
from tokenizers import pre_tokenizers

from course_lib.data import wikitext_lines
from course_lib.subwords import (
    Tokenizer,
    bytes_to_unicode,
    pre_tokenize,
    unicode_to_bytes,
)

LINES = wikitext_lines("train")[:800] + ["Ünïcödé naïve café — 東京 ☃ 😀 x²"]


@pytest.fixture(scope="module")
def pair():
    tok = Tokenizer.train(
        LINES, kind="byte_bpe", vocab_size=900, special_tokens=["<|endoftext|>"]
    )
    hf, vocab, merges = hf_bpe(LINES, 900, specials=["<|endoftext|>"], pre="byte_level")
    return tok, hf, vocab, merges


def test_byte_map_is_gpt2s():
    table = bytes_to_unicode()
    assert len(table) == 256 and len(set(table.values())) == 256
    assert table[ord(" ")] == "Ġ" and table[ord("\n")] == "Ċ" and table[ord("A")] == "A"
    assert set(table.values()) == set(pre_tokenizers.ByteLevel.alphabet())
    assert all(unicode_to_bytes()[c] == b for b, c in table.items())


def test_pre_tokenizer_matches_hf_on_text():
    hf = pre_tokenizers.ByteLevel(add_prefix_space=False)
    for text in LINES[:200] + ["don't  stop\n\n  it's 2024's_best __init__ ok?!"]:
        assert pre_tokenize(text, "byte_level") == [
            w for w, _ in hf.pre_tokenize_str(text)
        ]


def test_merges_vocab_and_encoding_identical_to_hf(pair):
    tok, hf, vocab, merges = pair
    assert list(tok.model.merges) == merges
    assert {p: i for i, p in enumerate(tok.vocab)} == vocab
    assert tok.vocab[1:257] == tuple(sorted(bytes_to_unicode().values()))
    for text in wikitext_lines("valid")[:60] + ["Zürich 東京 😀<|endoftext|>tail"]:
        assert tok.encode(text).ids == hf.encode(text).ids


POOLS = [
    (0x20, 0x7E),  # ASCII
    (0x00, 0x1F),  # control characters (\x1c-\x1f: str.isspace, but not White_Space)
    (0x7F, 0x36F),  # Latin, ², ½, combining marks
    (0x370, 0x6FF),  # Greek, Cyrillic, Arabic
    (0x900, 0x97F),  # Devanagari (marks inside words)
    (0x2000, 0x24FF),  # spaces, joiners, punctuation, circled letters
    (0x3000, 0x303F),  # CJK punctuation, ideographic space
    (0x4E00, 0x4FFF),  # CJK
    (0x1F100, 0x1F6FF),  # enclosed letters, emoji
]
ANYWHERE = (0x10000, 0x10FFFF)  # includes characters newer than this Python's Unicode


def _random_text(rng: random.Random, pools=(*POOLS, ANYWHERE)) -> str:
    chars = []
    for _ in range(rng.randint(0, 40)):
        lo, hi = rng.choice(pools)
        c = chr(rng.randint(lo, hi))
        chars.append(c if not 0xD800 <= ord(c) <= 0xDFFF else "?")
        if rng.random() < 0.2:
            chars.append(rng.choice([" ", "  ", "\n", "\t", "'s ", "'t"]))
    return "".join(chars)


@pytest.mark.parametrize("kind", ["byte_level", "whitespace"])
def test_pre_tokenizers_match_hf_on_random_unicode(kind):
    hf = (
        pre_tokenizers.ByteLevel(add_prefix_space=False)
        if kind == "byte_level"
        else pre_tokenizers.Whitespace()
    )
    rng = random.Random(1)
    for _ in range(500):
        text = _random_text(rng, POOLS)
        assert pre_tokenize(text, kind) == [w for w, _ in hf.pre_tokenize_str(text)]


def test_encoding_identical_to_hf_on_random_unicode(pair):
    tok, hf = pair[:2]
    rng = random.Random(2)
    for _ in range(200):
        text = _random_text(rng, POOLS)
        assert tok.encode(text).ids == hf.encode(text).ids


def test_round_trip_on_random_unicode(pair):
    tok = pair[0]
    rng = random.Random(0)
    for _ in range(300):
        text = _random_text(rng)
        enc = tok.encode(text)
        assert tok.decode(enc.ids) == text
        assert all(i is not None for i in enc.ids)  # nothing is ever unknown


def test_round_trip_keeps_special_tokens(pair):
    tok = pair[0]
    text = "a<|endoftext|>  b\n"
    enc = tok.encode(text)
    assert tok.special_id("<|endoftext|>") in enc.ids
    assert tok.decode(enc.ids) == text


def test_bad_input():
    small = Tokenizer.train(["abc"], kind="byte_bpe", vocab_size=100)  # as in HF:
    assert small.vocab_size == 256  # the 256 bytes are kept, no merge
    with pytest.raises(ValueError, match="byte_level"):
        Tokenizer.train(
            ["abc"], kind="byte_bpe", vocab_size=300, pre_tokenizer="whitespace"
        )
    with pytest.raises(TypeError, match="str"):
        Tokenizer.train(["abc"], kind="byte_bpe", vocab_size=300).encode(b"abc")


@pytest.mark.parametrize("kind", ["byte_level", "whitespace"])
def test_ascii_fast_path_agrees_with_the_unicode_classes(kind):
    from course_lib.subwords.pretokenize import _pattern

    rng = random.Random(3)
    for _ in range(300):
        text = "".join(chr(rng.randint(0, 127)) for _ in range(rng.randint(0, 30)))
        assert _pattern(kind, True).findall(text) == _pattern(kind, False).findall(text)
