"""BPE training as a learner writes it first: count, merge, repeat. Chapter 9.

Sennrich et al. (2016), Algorithm 1, in the style of Karpathy's ``minbpe``: after every
merge, count every adjacent pair of symbols in every word again (each word weighted by its
count), and merge the most frequent pair. Each merge costs a pass over the whole corpus;
:func:`~course_lib.subwords.bpe_train.train_bpe` learns the same merges with an index of
pair counts that only the words a merge touches update, which is how the libraries
(``tokenizers``, SentencePiece) make it fast. ``tests/test_subwords_bpe_naive.py`` proves
the two identical, ties included: on equal counts the pair with the smallest (left id,
right id) wins, ids given to the alphabet in code-point order, then to each merge in turn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

__all__ = ["merge_pair", "train_bpe_naive"]


def merge_pair(symbols: list[int], a: int, b: int, new: int) -> list[int]:
    """``symbols`` with every pair (a, b), left to right, replaced by ``new``."""
    out, i = [], 0
    while i < len(symbols):
        if symbols[i] == a and i + 1 < len(symbols) and symbols[i + 1] == b:
            out.append(new)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def train_bpe_naive(
    word_counts: Mapping[str, int], vocab_size: int
) -> list[tuple[str, str]]:
    """Learn BPE merges from ``{word: count}`` until ``vocab_size`` pieces (the alphabet
    counts): Sennrich et al. (2016), Algorithm 1. Returns the merges, rank 0 first."""
    vocab = sorted({c for word in word_counts for c in word})  # the alphabet, ids 0, 1…
    ids = {c: i for i, c in enumerate(vocab)}
    words = [([ids[c] for c in word], n) for word, n in word_counts.items()]
    merges = []
    while len(vocab) < vocab_size:
        pairs = Counter()  # (a, b) -> how often b follows a, over every word
        for symbols, n in words:
            for pair in zip(symbols, symbols[1:]):
                pairs[pair] += n
        if not pairs:
            break  # every word is a single piece
        # the most frequent pair; on equal counts, the smallest ids
        a, b = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append((vocab[a], vocab[b]))
        vocab.append(vocab[a] + vocab[b])  # the new piece takes the next id
        words = [(merge_pair(s, a, b, len(vocab) - 1), n) for s, n in words]
    return merges
