"""What plans share: the data's sizes, read from the data sets themselves (cached per
process), and counts the course's own functions give (a slice, a batching, a default)."""

from __future__ import annotations

import inspect
from collections import Counter
from functools import cache

from course_lib import data, sentiment


def kept(available: int, cap: int | None) -> int:
    """``len(x[:cap])`` of ``available`` items (None: all of them)."""
    return available if cap is None else min(cap, available)


def default_batch_size(fn) -> int:
    """The ``batch_size`` ``fn`` takes when a notebook passes none."""
    return inspect.signature(fn).parameters["batch_size"].default


@cache
def labelled_batch_count(n: int, batch_size: int) -> int:
    """Batches ``sentiment.labelled_batches`` makes of ``n`` (label, sentence) pairs."""
    pairs = [(0, "")] * n
    return len(
        sentiment.labelled_batches(
            pairs, lambda text: [1], batch_size=batch_size, pad_id=0
        )
    )


@cache
def ewt_words(split: str, sentences: int | None) -> int:
    """Words in the first ``sentences`` sentences (None: all) of an EWT split."""
    return sum(len(s.words) for s in data.ewt(split)[:sentences])


@cache
def ewt_sentences(split: str) -> int:
    """Sentences in an EWT split."""
    return len(data.ewt(split))


@cache
def sst2_items(split: str) -> int:
    """(label, sentence) pairs in an SST-2 split."""
    return len(data.sst2(split))


@cache
def fsdd_recordings(split: str, speaker: str | None = None) -> int:
    """Recordings in an FSDD split ("train", "test", "all"), only ``speaker``'s if named."""
    return sum(speaker in (None, r.speaker) for r in data.fsdd(split))


@cache
def wikitext_paragraphs(split: str) -> int:
    """Non-empty, non-heading lines of a WikiText-2 split (``data.wikitext_sentences``)."""
    return len(data.wikitext_sentences(split))


@cache
def wikitext_line_count(split: str, nonempty: bool = False) -> int:
    """Lines of a WikiText-2 split (``data.wikitext_lines``), only the non-blank ones if
    ``nonempty``."""
    return sum(
        bool(line.strip()) or not nonempty for line in data.wikitext_lines(split)
    )


@cache
def wikitext_line_words(split: str, lines: int | None, nonempty: bool = False) -> int:
    """Whitespace words in the first ``lines`` lines (None: all) of a WikiText-2 split, of
    its non-blank lines if ``nonempty`` (no ``<eos>``)."""
    chosen = [l for l in data.wikitext_lines(split) if l.strip() or not nonempty]
    return sum(len(line.split()) for line in chosen[:lines])


@cache
def sst2_words(split: str, items: int | None) -> int:
    """Whitespace words in the first ``items`` sentences (None: all) of an SST-2 split."""
    return sum(len(text.split()) for _, text in data.sst2(split)[:items])


@cache
def wikitext_token_count(split: str) -> int:
    """Tokens of a WikiText-2 split, an ``<eos>`` a line (``data.wikitext_tokens``)."""
    return len(data.wikitext_tokens(split))


@cache
def wikitext_chars(split: str) -> int:
    """Characters of a WikiText-2 split as the character LMs read it: every line stripped,
    then a newline."""
    return sum(len(line.strip()) + 1 for line in data.wikitext_lines(split))


@cache
def wikitext_kept_words(split: str, sentences: int | None, min_freq: int) -> int:
    """Words of the first ``sentences`` (None: all) ``data.wikitext_sentences`` that are
    seen at least ``min_freq`` times there: what ``encode_corpus`` keeps for word2vec."""
    counts = Counter(w for s in data.wikitext_sentences(split)[:sentences] for w in s)
    return sum(c for c in counts.values() if c >= min_freq)


@cache
def multi30k_source_lengths(split: str) -> tuple[int, ...]:
    """German (source) tokens of each pair of a ``multi30k_splits`` split, in order:
    "train", "dev" (val) or "test" (test_2016_flickr)."""
    from course_lib.seq2seq import multi30k_splits

    return tuple(len(s) for s, _ in getattr(multi30k_splits(), split))
