"""Parallel corpora as token lists, split for training and evaluation. Chapter 7.

Tatoeba English→French (real, 167,130 pairs) has no official split and many English
sentences with several French translations: the split is by *source sentence*, so that every
translation of a dev or test sentence is one of its references (multi-reference BLEU) and
none is seen in training. Multi30k German→English (download-only) keeps its official
train / val / test_2016_flickr splits, one reference each.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from course_lib.data import translation_pairs
from course_lib.runtime import run_seed
from course_lib.seq2seq.translation import tokenize

__all__ = [
    "TranslationSplits",
    "multi30k_splits",
    "reverse_references",
    "tatoeba_splits",
]

Pair = tuple[list[str], list[str]]
Multi = tuple[list[str], list[list[str]]]


@dataclass
class TranslationSplits:
    """train: (source, target) token lists; dev and test: (source, references)."""

    train: list[Pair]
    dev: list[Multi]
    test: list[Multi]


def tatoeba_splits(
    *,
    max_len: int = 10,
    n_train: int | None = None,
    n_dev: int = 500,
    n_test: int = 1000,
    seed: int = 0,
) -> TranslationSplits:
    """Tatoeba En→Fr, both sides at most ``max_len`` tokens, split by English sentence.

    ``n_dev`` and ``n_test`` count source sentences (each with all its translations);
    ``n_train`` caps the training pairs (None: all the rest), drawn at random with ``seed``.
    """
    if max_len < 1 or n_dev < 1 or n_test < 1:
        raise ValueError(
            f"max_len, n_dev, n_test must be >= 1; got {max_len}, {n_dev}, {n_test}"
        )
    raw: dict[str, list[str]] = {}  # lower-cased English -> its French translations
    for en, fr in translation_pairs("tatoeba_eng_fra"):
        if en.count(" ") < max_len and fr.count(" ") < max_len:  # cheap pre-filter
            raw.setdefault(en.lower(), []).append(fr)
    keys = sorted(raw)
    random.Random(run_seed(seed)).shuffle(keys)
    dev: list[Multi] = []
    test: list[Multi] = []
    train: list[Pair] = []
    for key in keys:  # tokenize only what is used
        src = tokenize(key)
        refs = [t for t in map(tokenize, raw[key]) if 0 < len(t) <= max_len]
        if not 0 < len(src) <= max_len or not refs:
            continue
        if len(dev) < n_dev:
            dev.append((src, refs))
        elif len(test) < n_test:
            test.append((src, refs))
        else:
            train.extend((src, t) for t in refs)
            if n_train and len(train) >= 2 * n_train:
                break
    if len(test) < n_test:
        raise ValueError(
            f"only {len(dev) + len(test)} source sentences for dev and test"
        )
    random.Random(run_seed(seed + 1)).shuffle(train)
    return TranslationSplits(train[:n_train] if n_train else train, dev, test)


def multi30k_splits(
    *, n_train: int | None = None, n_dev: int | None = None, n_test: int | None = None
) -> TranslationSplits:
    """Multi30k German→English: train / val / test_2016_flickr, tokenized, one reference.

    ``n_train``, ``n_dev``, ``n_test`` keep the first pairs of each split (None: all of it).
    """
    parts = {}
    for split in ("train", "val", "test_2016_flickr"):
        parts[split] = [
            (tokenize(de), tokenize(en))
            for en, de in translation_pairs("multi30k", split)
        ]
    return TranslationSplits(
        parts["train"][:n_train],
        [(s, [t]) for s, t in parts["val"][:n_dev]],
        [(s, [t]) for s, t in parts["test_2016_flickr"][:n_test]],
    )


def reverse_references(multi: list[Multi]) -> list[Multi]:
    """A (source, references) split read the other way: each distinct reference becomes
    a source, whose references are every source it translates, in first-seen order.

    Tatoeba's dev and test sets are split by English sentence; reversed, they score
    French → English (the noisy channel's direction) against every English original.
    """
    out: dict[tuple[str, ...], list[list[str]]] = {}
    for source, references in multi:
        for ref in references:
            back = out.setdefault(tuple(ref), [])
            if list(source) not in back:
                back.append(list(source))
    return [(list(ref), back) for ref, back in out.items()]
