"""Vocab: deterministic order, unknown tokens, validation, save/load."""

import json

import pytest

from course_lib.data import UnknownTokenError, Vocab

SENTS = [["the", "cat", "sat"], ["the", "dog", "sat"], ["a", "cat"], ["the"]]


def test_order_specials_then_frequency_then_alphabet():
    v = Vocab.build(SENTS, specials=("<unk>", "<pad>"))
    assert v.tokens == ("<unk>", "<pad>", "the", "cat", "sat", "a", "dog")
    assert len(v) == 7 and v["the"] == 2 and v.unk_index == 0
    assert v.counts["the"] == 3 and v.counts["<pad>"] == 0
    assert Vocab.build(reversed(SENTS), specials=("<unk>", "<pad>")) == v


def test_flat_tokens_min_freq_and_max_size():
    tokens = [t for s in SENTS for t in s]
    assert Vocab.build(tokens) == Vocab.build(SENTS)
    v = Vocab.build(SENTS, min_freq=2)
    assert v.tokens == ("<unk>", "the", "cat", "sat")
    assert Vocab.build(SENTS, max_size=3).tokens == ("<unk>", "the", "cat")


def test_special_seen_in_data_keeps_its_count():
    v = Vocab.build([["<unk>", "x", "<unk>"]])
    assert v.tokens == ("<unk>", "x") and v.counts["<unk>"] == 2


def test_encode_decode_and_unknown_tokens():
    v = Vocab.build(SENTS)
    ids = v.encode(["the", "bird", "sat"])
    assert ids == [v["the"], 0, v["sat"]]
    assert v.decode(ids) == ["the", "<unk>", "sat"]
    assert v.index("zebra") == v.unk_index and "zebra" not in v and "cat" in v
    assert v.token(1) == v.lookup_token(1) == "the"
    with pytest.raises(IndexError, match="out of range"):
        v.token(len(v))
    with pytest.raises(TypeError, match="not a string"):
        v.encode("the cat")


def test_unknown_token_without_unk_raises_a_keyerror_that_says_how_to_fix():
    v = Vocab.build(SENTS, specials=(), unk=None)
    assert v.unk_index is None and v.unk is None
    with pytest.raises(UnknownTokenError) as err:
        v["zebra"]
    assert isinstance(err.value, KeyError)
    msg = str(err.value)
    assert "'zebra'" in msg and "no unknown token" in msg and "<unk>" in msg
    assert not msg.startswith('"')  # plain message, not a quoted KeyError repr


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"min_freq": 0}, ValueError, "min_freq"),
        ({"specials": ("<unk>", "<unk>")}, ValueError, "unique"),
        ({"specials": ("<pad>",)}, ValueError, "must be one of specials"),
        ({"max_size": 0}, ValueError, "max_size"),
    ],
)
def test_build_validates_arguments(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        Vocab.build(SENTS, **kwargs)


def test_empty_input():
    assert Vocab.build([]).tokens == ("<unk>",)
    with pytest.raises(ValueError, match="empty"):
        Vocab.build([], specials=(), unk=None)
    with pytest.raises(ValueError, match="empty"):
        Vocab.build(SENTS, min_freq=10, specials=(), unk=None)
    with pytest.raises(TypeError, match="not one string"):
        Vocab.build("the cat")


def test_constructor_checks():
    with pytest.raises(ValueError, match="unique"):
        Vocab(["a", "a"])
    with pytest.raises(ValueError, match="not among the tokens"):
        Vocab(["a"], unk="<unk>")


def test_save_load_round_trip(tmp_path):
    v = Vocab.build(SENTS + [["naïve", "日本"]], specials=("<unk>", "<pad>", "<bos>"))
    path = tmp_path / "vocab.json"
    v.save(path)
    assert [p.name for p in tmp_path.iterdir()] == ["vocab.json"]  # no temp left
    w = Vocab.load(path)
    assert w == v and w.counts == v.counts and w.specials == v.specials
    assert w.encode(["naïve", "?"]) == v.encode(["naïve", "?"])
    path.write_text(json.dumps({"tokens": []}))
    with pytest.raises(ValueError, match="not a vocabulary"):
        Vocab.load(path)
