"""Pre-tokenizers, BPE, byte-level BPE and WordPiece against HF ``tokenizers`` (Hypothesis).

Text is drawn from every Unicode category (controls, separators, combining marks, symbols,
private use), mixed with runs of spaces, tabs and newlines; surrogates are excluded (a
Python ``str`` may hold one, UTF-8 and Rust cannot), and so are code points unassigned in
this Python's tables (below). Each of our pre-tokenizers splits it as its HF counterpart
does; BPE trained on drawn corpora gives HF's merges and vocabulary; encodings of drawn text
give HF's ids; byte-level decoding gives every byte back.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from subwords_reference import hf_bpe, hf_wordpiece
from tokenizers import pre_tokenizers

from course_lib.subwords import (
    Tokenizer,
    WordPiece,
    bytes_to_unicode,
    pre_tokenize,
    train_bpe,
    word_counts,
)

# Cn: unassigned in this Python's Unicode tables, which may be assigned in Rust's (U+2EBF0,
# Unicode 15.1, is a CJK ideograph to tokenizers and nothing to Python 3.11): no reference.
CHARS = st.characters(exclude_categories=("Cs", "Cn"))
SPACE = st.sampled_from([" ", "  ", "\t", "\n", " \u3000", "\xa0", "'s", "'t "])
TEXT = st.lists(st.one_of(st.text(CHARS, max_size=4), SPACE), max_size=12).map("".join)
SMALL = st.text(st.sampled_from("abé\u0301中 \n"), max_size=30)  # ties, marks, CJK
HF_PRE = {
    "whitespace_split": pre_tokenizers.WhitespaceSplit(),
    "whitespace": pre_tokenizers.Whitespace(),
    "byte_level": pre_tokenizers.ByteLevel(add_prefix_space=False),
}


@settings(max_examples=300)
@given(TEXT, st.sampled_from(sorted(HF_PRE)))
def test_pre_tokenizers_split_as_hf(text, kind):
    assert pre_tokenize(text, kind) == [
        w for w, _ in HF_PRE[kind].pre_tokenize_str(text)
    ]


@settings(max_examples=60)
@given(
    st.lists(st.one_of(SMALL, TEXT), min_size=1, max_size=8),
    st.integers(1, 80),
    st.sampled_from(sorted(HF_PRE)),
)
def test_bpe_training_gives_hf_merges_and_vocabulary(lines, size, pre):
    _, vocab, merges = hf_bpe(lines, size, pre=pre)
    alphabet = bytes_to_unicode().values() if pre == "byte_level" else ()
    model = train_bpe(word_counts(lines, pre), size, initial_alphabet=alphabet)
    assert list(model.merges) == merges
    assert {p: i for i, p in enumerate(model.vocab)} == vocab


@pytest.fixture(scope="module")
def byte_pair():
    lines = ["Ünïcödé naïve café — 東京 ☃ 😀 x² the cat sat", "abab ab ba \t é\u0301"]
    tok = Tokenizer.train(lines, kind="byte_bpe", vocab_size=300)
    return tok, hf_bpe(lines, 300, pre="byte_level")[0]


@settings(max_examples=200)
@given(TEXT)
def test_byte_level_encodes_as_hf_and_decodes_every_byte(byte_pair, text):
    tok, hf = byte_pair
    enc = tok.encode(text)
    assert enc.ids == hf.encode(text).ids
    assert tok.decode(enc.ids) == text


@settings(max_examples=200)
@given(TEXT, st.sampled_from(["whitespace_split", "whitespace"]))
def test_wordpiece_encodes_as_hf(text, pre):
    vocab = [
        "[UNK]",
        "a",
        "b",
        "é",
        "##a",
        "##b",
        "##é",
        "ab",
        "##ab",
        "中",
        "##\u0301",
    ]
    tok = Tokenizer(
        WordPiece(vocab), kind="wordpiece", pre_tokenizer=pre, special_tokens=["[UNK]"]
    )
    ours, ref = tok.encode(text), hf_wordpiece(vocab, pre).encode(text)
    assert (ours.pieces, ours.ids) == (ref.tokens, ref.ids)
