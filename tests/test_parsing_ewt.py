"""The oracle on the real treebank: every projective EWT tree is rebuilt exactly.

Reads UD English EWT from the offline mirror (``COURSE_LIB_DATA``, else ``../shared/data``);
a missing mirror is a failure, not a skip. About 5-10 s, most of it reading the files.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from course_lib.data import ewt
from course_lib.parsing import (
    build_vocabs,
    count_nonprojective,
    is_projective,
    oracle_parse,
    replay,
    static_oracle,
)

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def treebank():
    entries = [e for e in os.environ.get("COURSE_LIB_DATA", "").split(os.pathsep) if e]
    mirrors = [Path(e) for e in entries] + [REPO.parent / "shared" / "data"]
    mirror = next((m for m in mirrors if (m / "ud_english_ewt").is_dir()), None)
    if mirror is None:
        pytest.fail(
            "No data mirror with ud_english_ewt: set COURSE_LIB_DATA to the course's "
            f"shared/data folder (looked in {[str(m) for m in mirrors]})"
        )
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COURSE_LIB_DATA", str(mirror))
        yield {split: ewt(split) for split in ("train", "dev", "test")}


def test_nonprojective_counts(treebank):
    counts = {split: (len(s), count_nonprojective(s)) for split, s in treebank.items()}
    assert counts == {"train": (12544, 288), "dev": (2001, 31), "test": (2077, 26)}


def test_batched_oracle_rebuilds_every_projective_tree_of_train_dev_and_test(treebank):
    vocabs = build_vocabs(treebank["train"])  # dev/test labels are all in train
    for split, sentences in treebank.items():
        projective = [s for s in sentences if is_projective(s.heads)]
        trees = oracle_parse(projective, vocabs)
        wrong = [
            s.sent_id
            for s, t in zip(projective, trees, strict=True)
            if (t.heads, t.deprels) != (s.heads, s.deprels)
        ]
        assert wrong == [], f"{split}: {len(wrong)} trees not rebuilt, e.g. {wrong[:3]}"


def test_one_sentence_oracle_on_dev_and_test(treebank):
    for split in ("dev", "test"):
        for s in treebank[split]:
            if not is_projective(s.heads):
                continue
            final = replay(s.words, static_oracle(s.heads, s.deprels, s.words))[-1][0]
            assert final.is_terminal() and len(final.arcs) == len(s)
            assert (tuple(final.heads()), tuple(final.deprels())) == (
                s.heads,
                s.deprels,
            )
