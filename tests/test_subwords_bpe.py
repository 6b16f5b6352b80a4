"""BPE from scratch: merges and vocabulary identical to HF tokenizers' BpeTrainer."""

from __future__ import annotations

import random

import pytest
from subwords_reference import hf_bpe, random_corpus

from course_lib.data import wikitext_lines
from course_lib.subwords import (
    BPE,
    Tokenizer,
    UnknownSymbolError,
    train_bpe,
    word_counts,
)

FIXTURE = ["roses are red", "voilets are blue", "BERT is big", "and so is GPT-2"]


def _ours(lines, vocab_size, pre="whitespace_split", **kw):
    return train_bpe(word_counts(lines, pre), vocab_size, **kw)


def _assert_same(lines, vocab_size, pre="whitespace_split", **kw):
    specials = kw.get("special_tokens", ())
    mf = kw.get("min_frequency", 0)
    _, vocab, merges = hf_bpe(
        lines, vocab_size, min_frequency=mf, specials=specials, pre=pre
    )
    model = _ours(lines, vocab_size, pre, **kw)
    assert list(model.merges) == merges
    assert {p: i for i, p in enumerate(model.vocab)} == vocab
    return model


def test_hf_trainer_fixture():
    # tokenizers' own test_train: min_frequency 2 gives exactly re, are, is
    model = _assert_same(FIXTURE, 30000, min_frequency=2)
    assert model.merges == (("r", "e"), ("a", "re"), ("i", "s"))
    assert model.vocab[:3] == ("-", "2", "B")  # the alphabet sorted by code point
    assert model.vocab[22:] == ("re", "are", "is")
    assert model.merge_counts == (3, 2, 2)


def test_ties_broken_by_ids_not_by_first_occurrence():
    # (z, b) occurs first, (a, b) as often: the smaller ids (a < z) win
    lines = ["zb zb ab ab"]
    model = _assert_same(lines, 6)
    assert model.merges[0] == ("a", "b")
    # specials come first and shift every id but not the order of the alphabet
    _assert_same(lines + ["yb yb"], 9, special_tokens=["<z>", "<a>"])


@pytest.mark.parametrize("seed", range(12))
def test_random_corpora_with_many_ties(seed):
    rng = random.Random(seed)
    alphabet = "abcde" if seed % 2 else "ab"
    lines = random_corpus(rng, alphabet, max_word=7, lines=20)
    _assert_same(
        lines,
        rng.randint(10, 60),
        min_frequency=rng.randint(0, 2),
        special_tokens=["[UNK]", "[PAD]"][: seed % 3],
    )


@pytest.mark.parametrize("pre", ["whitespace_split", "whitespace"])
def test_wikitext_sample(pre):
    lines = wikitext_lines("train")[:1500]
    model = _assert_same(lines, 1200, pre, special_tokens=["<pad>", "<unk>"])
    assert len(model.vocab) == 1200


def test_min_frequency_stops_training():
    model = _ours(["ab ab ab cd"], 100, min_frequency=2)
    assert model.merges == (("a", "b"),)


def test_encode_applies_merges_in_rank_order():
    model = BPE(
        vocab=("a", "b", "c", "bc", "ab", "abc"),
        merges=(("b", "c"), ("a", "b"), ("a", "bc")),
    )
    # (b, c) has rank 0, so "abc" is a + bc -> abc, never ab + c
    steps = model.merge_steps("abc")
    assert [s for s, _ in steps] == [["a", "b", "c"], ["a", "bc"], ["abc"]]
    assert [r for _, r in steps] == [None, 0, 2]
    assert model.encode_word("abab") == [4, 4]
    assert model.encode_word("cab") == [2, 4]


def test_encoding_identical_to_hf_and_decode_with_suffix(tmp_path):
    lines = wikitext_lines("train")[:400]
    tok = Tokenizer.train(
        lines, vocab_size=600, special_tokens=["<unk>"], unk_token="<unk>"
    )
    hf, _, _ = hf_bpe(lines, 600, specials=["<unk>"])
    text = " ".join(lines[1:40])  # every character seen in training
    assert tok.encode(text).ids == hf.encode(text).ids
    unseen = "naïve Ωmega"  # HF's BPE without unk drops them; ours maps them to <unk>
    assert tok.encode(unseen).pieces.count("<unk>") == 2
    # Sennrich's </w> suffix lets decode restore the words
    sen = Tokenizer.train(lines, vocab_size=600, end_of_word_suffix="</w>")
    words = "the game was released in Japan".split()
    assert sen.decode(sen.encode(" ".join(words)).ids) == " ".join(words)
    assert Tokenizer.load(sen.save(tmp_path / "sen.json")).encode("the game").ids == (
        sen.encode("the game").ids
    )


def test_words_remembered_across_calls_give_hf_ids(monkeypatch):
    """encode keeps each word's ids between calls; a full cache starts again, same ids."""
    import course_lib.subwords.tokenizer as tokenizer

    lines = wikitext_lines("train")[:400]
    hf, _, _ = hf_bpe(lines, 600, specials=["<unk>"])
    tok = Tokenizer.train(lines, vocab_size=600, special_tokens=["<unk>"])
    want = [hf.encode(line).ids for line in lines[1:60]]
    assert [tok.encode(line).ids for line in lines[1:60]] == want
    assert len(tok._word_ids) > 100  # the words of earlier lines were kept
    monkeypatch.setattr(tokenizer, "WORD_CACHE_SIZE", 5)
    small = Tokenizer.from_dict(tok.to_dict())
    assert [small.encode(line).ids for line in lines[1:60]] == want
    assert len(small._word_ids) <= 5


def test_special_tokens_and_save_load(tmp_path):
    tok = Tokenizer.train(FIXTURE, vocab_size=40, special_tokens=["[CLS]", "[SEP]"])
    enc = tok.encode("[CLS] roses are red [SEP]")
    assert enc.ids[0] == tok.special_id("[CLS]") == 0 and enc.ids[-1] == 1
    assert enc.words[0] is None and enc.words[1] == 1
    with pytest.raises(ValueError, match=r"unknown special token '\[MASK\]'"):
        tok.special_id("[MASK]")
    path = tok.save(tmp_path / "tok.json")
    back = Tokenizer.load(path)
    assert back.vocab == tok.vocab and back.model.merges == tok.model.merges
    assert back.encode("roses are big").ids == tok.encode("roses are big").ids
    assert not list(tmp_path.glob(".*tmp"))  # the temporary file was renamed away


def test_the_alphabet_is_kept_whatever_the_size_as_in_hf():
    assert train_bpe({}, 100, special_tokens=["<s>"]).vocab == ("<s>",)
    model = _assert_same(FIXTURE, 5)  # 22 characters: all kept, no merge
    assert len(model.vocab) == 22 and not model.merges


def test_bad_input():
    with pytest.raises(ValueError, match="empty"):
        Tokenizer.train(["", "   "], vocab_size=100)
    with pytest.raises(TypeError, match="mapping"):
        train_bpe(["roses"], 100)
    with pytest.raises(ValueError, match="unk_token"):
        _ours(FIXTURE, 100, unk_token="<unk>")
    tok = Tokenizer.train(FIXTURE, vocab_size=40)
    with pytest.raises(UnknownSymbolError, match=r"'é' \(U\+00E9\)"):
        tok.encode("rosé")
    with pytest.raises(ValueError, match="end_of_word_suffix is for kind='bpe'"):
        Tokenizer.train(
            FIXTURE, kind="byte_bpe", vocab_size=300, end_of_word_suffix="</w>"
        )
    with pytest.raises(ValueError, match="kind must be one of"):
        Tokenizer.train(FIXTURE, kind="unigram", vocab_size=40)
    with pytest.raises(ValueError, match="id must be"):
        tok.decode([999])
    with_unk = Tokenizer.train(
        FIXTURE, vocab_size=40, special_tokens=["<unk>"], unk_token="<unk>"
    )
    assert with_unk.encode("rosé").pieces[-1] == "<unk>"


def test_deterministic():
    lines = wikitext_lines("train")[:300]
    a = _ours(lines, 500)
    b = train_bpe(dict(reversed(list(word_counts(lines).items()))), 500)
    assert a == b
