"""The chapter's measurements: the ``<unk>`` problem and what a vocabulary costs. Chapter 9.

- ``unknown_share``: the share of test tokens a word vocabulary cannot represent (the
  tokens outside it, plus those already written ``<unk>`` in the corpus);
- ``word_vocabulary``: the words a word-level model would keep (count >= min_count,
  at most max_size);
- ``tokens_per_word``: how many subword pieces a tokenizer spends per word (fertility);
- ``embedding_parameters``: the parameters of an input embedding and an output softmax
  for V pieces of width D: V·D for the embedding, V·D + V for the softmax (weights and
  bias), V·D + V when the two share their weights (Press & Wolf, 2017).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence

__all__ = [
    "embedding_parameters",
    "tokens_per_word",
    "unknown_share",
    "word_vocabulary",
]


def word_vocabulary(
    tokens: Iterable[str], *, min_count: int = 1, max_size: int | None = None
) -> set[str]:
    """The words of ``tokens`` seen at least ``min_count`` times, the ``max_size`` most frequent.

    Ties at the size limit go to the word that sorts first, so the set is deterministic.
    """
    if min_count < 1:
        raise ValueError(f"min_count must be >= 1; got {min_count}")
    counts = Counter(tokens)
    kept = sorted(
        (w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w)
    )
    return set(kept if max_size is None else kept[:max_size])


def unknown_share(
    tokens: Sequence[str], vocabulary: Collection[str], unk: str | None = "<unk>"
) -> float:
    """The share of ``tokens`` that a model with ``vocabulary`` must map to ``<unk>``.

    A token counts as unknown when it is not in ``vocabulary`` or is ``unk`` itself (a
    corpus such as WikiText-2 has replaced its rare words by ``<unk>`` already).
    """
    if not tokens:
        raise ValueError("tokens is empty: the share of unknown tokens is undefined")
    vocab = set(vocabulary)
    unknown = sum(1 for t in tokens if t == unk or t not in vocab)
    return unknown / len(tokens)


def tokens_per_word(tokenizer, words: Sequence[str]) -> float:
    """The mean number of pieces ``tokenizer`` splits each of ``words`` into.

    tokenizer: anything with ``encode(text).ids`` (a ``Tokenizer``); each word is
    encoded on its own.
    """
    if not words:
        raise ValueError("words is empty: tokens per word is undefined")
    done: dict[str, int] = {}
    total = 0
    for w in words:
        if w not in done:
            done[w] = len(tokenizer.encode(w).ids)
        total += done[w]
    return total / len(words)


def embedding_parameters(vocab_size: int, d_model: int, *, tied: bool = False) -> int:
    """Parameters of an embedding (V×D) plus a softmax layer (V×D weights, V biases).

    With ``tied`` the softmax reuses the embedding matrix: V·D + V.
    """
    if vocab_size < 1 or d_model < 1:
        raise ValueError(
            f"vocab_size and d_model must be >= 1; got {vocab_size}, {d_model}"
        )
    table = vocab_size * d_model
    return table + vocab_size if tied else 2 * table + vocab_size
