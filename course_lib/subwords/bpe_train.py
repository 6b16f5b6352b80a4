"""Learning BPE merges from word counts, with an incrementally updated pair index. Chapter 9.

Sennrich et al. (2016), Algorithm 1: start from characters; repeatedly count every
adjacent pair of symbols inside the words (each word weighted by its count), merge the
most frequent pair into a new symbol, until the vocabulary has ``vocab_size`` pieces.

Recounting every pair after every merge costs a pass over the corpus per merge. Instead
we keep an index (as HF ``tokenizers``' ``BpeTrainer`` does):

- ``pair_counts[(a, b)]``: the weighted count of the pair over all words;
- for each pair, the words that contain it, carried in a max-heap keyed by count.

A merge of (a, b) -> ab visits only the words that contain (a, b); in each occurrence
x a b y it takes (x, a) and (b, y) away and adds (x, ab) and (ab, y), so the counts stay
exact with work proportional to the occurrences, not to the corpus. Heap entries whose
count went stale are pushed back with the current count when they surface (lazy deletion).

Which pair wins (the tie-break, identical to ``tokenizers`` 0.23): the highest count; on
equal counts the smallest (left id, right id) of the *current ids*. Ids are given in this
order: the special tokens as listed, then the alphabet sorted by code point, then each
merge takes the next id. So ties are broken by the ids of the pieces, not by where a pair
first occurs in the text. A merge needs ``count >= min_frequency``; ``vocab_size`` counts
the specials and the alphabet. Should a merge spell a piece that exists already (another
pair with the same string; not seen in plain character BPE, where merging left to right
leaves one way to build each piece), the piece keeps its id, and a pair recorded twice keeps
its later rank, as ``tokenizers`` does when it saves the model; only then could two heap
entries hold the same pair and count (``tokenizers`` leaves their order to its hash maps; we
take the one pushed first).
"""

from __future__ import annotations

import heapq
import itertools
from collections import defaultdict
from collections.abc import Iterable, Mapping

from course_lib.subwords.bpe import BPE

__all__ = ["train_bpe"]


def train_bpe(
    word_counts: Mapping[str, int],
    vocab_size: int,
    *,
    min_frequency: int = 0,
    special_tokens: Iterable[str] = (),
    initial_alphabet: Iterable[str] = (),
    unk_token: str | None = None,
    end_of_word_suffix: str | None = None,
) -> BPE:
    """Learn BPE merges from ``{word: count}`` until the vocabulary has ``vocab_size`` pieces.

    Sennrich et al. (2016), Algorithm 1, with the pair index described above.
    special_tokens: pieces given the first ids, in order (never merged).
    initial_alphabet: characters to include even if unseen (byte-level BPE passes 256).
    unk_token: one of the special tokens, for characters outside the alphabet at encoding.
    end_of_word_suffix: e.g. ``"</w>"`` on the last character of each word (Sennrich),
        so that decoding knows where words end.
    Returns a ``BPE`` model. Deterministic: the same counts give the same model. As HF's
    ``BpeTrainer``, the specials and the alphabet are always kept: a ``vocab_size`` below
    their number, or an empty corpus, gives them alone, with no merge.
    """
    specials = _check_args(
        word_counts, vocab_size, min_frequency, special_tokens, unk_token
    )
    vocab = list(dict.fromkeys(specials))
    ids = {piece: i for i, piece in enumerate(vocab)}
    alphabet = {c for word in word_counts for c in word} | set(initial_alphabet)
    _add(vocab, ids, sorted(alphabet))
    if end_of_word_suffix:
        _add(vocab, ids, sorted({w[-1] + end_of_word_suffix for w in word_counts}))
    words, freqs = _initial_words(word_counts, ids, end_of_word_suffix)
    pair_counts, where = _count_pairs(words, freqs)
    heap: list = []  # (-count, a, b, seq, words): seq breaks ties, first pushed first
    seq = itertools.count()
    _push(heap, pair_counts, where, seq)
    ranks: dict[tuple[str, str], int] = {}
    chosen: list[tuple[tuple[str, str], int]] = []
    while len(ids) < vocab_size and heap:
        neg, a, b, _, pos = heapq.heappop(heap)
        count = pair_counts[a, b]
        if -neg != count:  # stale entry: back in with its current count
            heapq.heappush(heap, (-count, a, b, next(seq), pos))
            continue
        if count < 1 or count < min_frequency:
            break
        new = _add(vocab, ids, [vocab[a] + vocab[b]])
        ranks[vocab[a], vocab[b]] = len(chosen)  # a repeated pair keeps its later rank
        chosen.append(((vocab[a], vocab[b]), count))
        where = _merge_everywhere(words, freqs, pos, a, b, new, pair_counts)
        _push(heap, pair_counts, where, seq)
    order = sorted(ranks.values())
    return BPE(
        vocab=tuple(vocab),
        merges=tuple(chosen[r][0] for r in order),
        merge_counts=tuple(chosen[r][1] for r in order),
        unk_token=unk_token,
        end_of_word_suffix=end_of_word_suffix,
    )


def _check_args(word_counts, vocab_size, min_frequency, special_tokens, unk_token):
    if not isinstance(word_counts, Mapping):
        raise TypeError(
            f"word_counts must be a mapping word -> count (see word_counts()); got "
            f"{type(word_counts).__name__}"
        )
    bad = [w for w, c in word_counts.items() if not (isinstance(w, str) and w)]
    bad += [w for w, c in word_counts.items() if not isinstance(c, int) or c < 1]
    if bad:
        raise ValueError(
            f"word_counts needs non-empty str words with int counts >= 1; got {bad[0]!r}"
        )
    if not isinstance(vocab_size, int) or vocab_size < 1:
        raise ValueError(f"vocab_size must be a positive int; got {vocab_size!r}")
    if not isinstance(min_frequency, int) or min_frequency < 0:
        raise ValueError(f"min_frequency must be an int >= 0; got {min_frequency!r}")
    if isinstance(special_tokens, str):
        raise TypeError("special_tokens must be a list of str, not one str")
    specials = list(special_tokens)
    if any(not isinstance(s, str) or not s for s in specials):
        raise ValueError(f"special tokens must be non-empty strings; got {specials}")
    if unk_token is not None and unk_token not in specials:
        raise ValueError(
            f"unk_token {unk_token!r} must be one of the special tokens {specials}"
        )
    return specials


def _add(vocab: list[str], ids: dict[str, int], pieces: Iterable[str]) -> int:
    """Give each new piece the next id; return the id of the last one (old or new)."""
    i = -1
    for piece in pieces:
        i = ids.get(piece, -1)
        if i < 0:
            i = ids[piece] = len(vocab)
            vocab.append(piece)
    return i


def _initial_words(word_counts, ids, suffix):
    words, freqs = [], []
    for word, count in word_counts.items():
        symbols = [ids[c] for c in word]
        if suffix:
            symbols[-1] = ids[word[-1] + suffix]
        words.append(symbols)
        freqs.append(count)
    return words, freqs


def _count_pairs(words, freqs):
    """The index: pair -> weighted count, and pair -> the words that contain it."""
    pair_counts: dict[tuple[int, int], int] = defaultdict(int)
    where: dict[tuple[int, int], set[int]] = defaultdict(set)
    for w, (symbols, f) in enumerate(zip(words, freqs, strict=True)):
        for pair in zip(symbols, symbols[1:]):
            pair_counts[pair] += f
            where[pair].add(w)
    return pair_counts, where


def _push(heap, pair_counts, where, seq) -> None:
    for (a, b), pos in sorted(where.items()):
        count = pair_counts[a, b]
        if count > 0:
            heapq.heappush(heap, (-count, a, b, next(seq), pos))


def _merge_everywhere(words, freqs, pos, a, b, new, pair_counts):
    """Merge (a, b) -> new in the words ``pos``; update counts; return the new pairs' words.

    In each occurrence x a b y: (x, a) and (b, y) lose the word's count, (x, new) and
    (new, y) gain it (the merged pair itself is not decremented, as in ``tokenizers``).
    """
    grown: dict[tuple[int, int], set[int]] = defaultdict(set)
    for w in sorted(pos):
        s, f = words[w], freqs[w]
        i = 0
        while i < len(s) - 1:
            if s[i] == a and s[i + 1] == b:
                if i > 0:
                    pair_counts[s[i - 1], a] -= f
                    pair_counts[s[i - 1], new] += f
                    grown[s[i - 1], new].add(w)
                s[i : i + 2] = [new]
                if i < len(s) - 1:
                    pair_counts[b, s[i + 1]] -= f
                    pair_counts[new, s[i + 1]] += f
                    grown[new, s[i + 1]].add(w)
            i += 1
    return grown
