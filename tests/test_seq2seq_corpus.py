"""Tatoeba splits by source sentence (no leak, several references); tokenization."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from course_lib.seq2seq.corpus import reverse_references, tatoeba_splits
from course_lib.seq2seq.translation import build_vocab, tokenize

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def splits():
    entries = [e for e in os.environ.get("COURSE_LIB_DATA", "").split(os.pathsep) if e]
    mirrors = [Path(e) for e in entries] + [REPO.parent / "shared" / "data"]
    mirror = next((m for m in mirrors if (m / "tatoeba_eng_fra").is_dir()), None)
    if mirror is None:
        pytest.fail(f"No data mirror with tatoeba_eng_fra (looked in {mirrors})")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COURSE_LIB_DATA", str(mirror))
        yield tatoeba_splits(max_len=8, n_train=3000, n_dev=50, n_test=100, seed=1)


def test_split_by_source_sentence(splits):
    assert (
        len(splits.train) == 3000 and len(splits.dev) == 50 and len(splits.test) == 100
    )
    held_out = {tuple(s) for s, _ in splits.dev + splits.test}
    assert not held_out & {tuple(s) for s, _ in splits.train}
    assert any(len(refs) > 1 for _, refs in splits.test)
    for s, refs in splits.test:
        assert 0 < len(s) <= 8 and all(0 < len(r) <= 8 for r in refs)


def test_tokenize_and_vocab_specials():
    assert tokenize("Je l'ai vu !") == ["je", "l", "'", "ai", "vu", "!"]
    vocab = build_vocab([["a", "b"], ["a"]])
    assert vocab.tokens[:4] == ("<pad>", "<unk>", "<bos>", "<eos>")
    with pytest.raises(TypeError, match="string"):
        tokenize(["a"])
    with pytest.raises(ValueError, match="must be >= 1"):
        tatoeba_splits(n_dev=0)


def test_reverse_references_turns_every_reference_into_a_source(splits):
    toy = [(["a"], [["x"], ["y"]]), (["b"], [["x"]]), (["a"], [["x"]])]
    assert reverse_references(toy) == [(["x"], [["a"], ["b"]]), (["y"], [["a"]])]
    back = reverse_references(splits.dev)
    assert sum(len(r) for _, r in back) >= len({tuple(s) for s, _ in splits.dev})
    pairs = {(tuple(s), tuple(r)) for s, refs in splits.dev for r in refs}
    assert pairs == {(tuple(e), tuple(f)) for f, refs in back for e in refs}
