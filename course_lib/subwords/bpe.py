"""A trained BPE model: a vocabulary and a ranked list of merges. Chapter 9.

Byte-pair encoding for words (Sennrich et al., 2016, Sec. 3.2): a word starts as its
characters; the merges learnt in training are applied in the order they were learnt
(rank 0 first), each one wherever its pair occurs, until no learnt merge applies.
Training is in ``bpe_train``; this module only applies a model.

Encoding follows HF ``tokenizers``' ``BPE`` model: at each step the adjacent pair with
the lowest rank is merged, at its leftmost position. ``merge_steps`` returns every
intermediate segmentation, which is what the chapter's explorer steps through.

Rescanning the word for the best pair after every merge (what ``merge_steps`` does, to
show each step) costs O(n) a merge, O(n²) a word: 20 s for a pasted 20,000-character
token. ``encode_word`` merges as HF's ``Word.merge_all`` does, with a heap of candidate
pairs keyed (rank, position) over a linked list of symbols: O(n log n), the same merges in
the same order (the lowest rank, leftmost on ties), and faster on short words too.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["BPE", "UnknownSymbolError"]


class UnknownSymbolError(ValueError):
    """A character that is not in the model's alphabet, with no unknown token to use."""


def _short(word: str, keep: int = 40) -> str:
    """A word for an error message: its repr, cut after ``keep`` characters."""
    return (
        repr(word) if len(word) <= keep else f"{word[:keep]!r}… ({len(word):,} chars)"
    )


@dataclass(frozen=True)
class BPE:
    """A BPE model: ``vocab[i]`` is the piece with id i; ``merges[r]`` the pair of rank r.

    vocab: pieces in id order (special tokens, then the alphabet, then one per merge).
    merges: (left piece, right piece) pairs, rank 0 first.
    merge_counts: the pair count at which each merge was chosen (0 when unknown).
    unk_token: the piece for characters outside the alphabet; None makes them an error.
    end_of_word_suffix: appended to a word's last character (Sennrich's ``</w>``), or None.
    """

    vocab: tuple[str, ...]
    merges: tuple[tuple[str, str], ...]
    merge_counts: tuple[int, ...] = ()
    unk_token: str | None = None
    end_of_word_suffix: str | None = None
    _ids: dict[str, int] = field(init=False, repr=False, compare=False)
    _ranks: dict[tuple[int, int], tuple[int, int]] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        ids = {piece: i for i, piece in enumerate(self.vocab)}
        if len(ids) != len(self.vocab):
            raise ValueError("vocab has a repeated piece; every piece needs one id")
        if self.unk_token is not None and self.unk_token not in ids:
            raise ValueError(f"unk_token {self.unk_token!r} is not in the vocabulary")
        ranks = {}
        for rank, (a, b) in enumerate(self.merges):
            if a not in ids or b not in ids or a + b not in ids:
                raise ValueError(
                    f"merge {rank} ({a!r}, {b!r}) needs {a!r}, {b!r} and {a + b!r} "
                    "in the vocabulary"
                )
            ranks[ids[a], ids[b]] = (rank, ids[a + b])
        object.__setattr__(self, "_ids", ids)
        object.__setattr__(self, "_ranks", ranks)

    def token_to_id(self, piece: str) -> int | None:
        """The id of ``piece``, or None when it is not in the vocabulary."""
        return self._ids.get(piece)

    def symbols(self, word: str) -> list[int]:
        """The ids of ``word``'s characters (the suffix on the last), before any merge."""
        if not word:
            raise ValueError("a word must be a non-empty string")
        chars = list(word)
        if self.end_of_word_suffix:
            chars[-1] += self.end_of_word_suffix
        ids = []
        for c in chars:
            i = self._ids.get(c)
            if i is None:
                if self.unk_token is None:
                    raise UnknownSymbolError(
                        f"character {c!r} (U+{ord(c[0]):04X}) of word {_short(word)} is not in "
                        "the alphabet and the model has no unk_token; train on text "
                        "that contains it, give unk_token=, or use byte-level BPE"
                    )
                i = self._ids[self.unk_token]
            ids.append(i)
        return ids

    def encode_word(self, word: str) -> list[int]:
        """The ids of ``word`` after every applicable merge, lowest rank first."""
        return self._merge_with_heap(self.symbols(word))

    def _merge_with_heap(self, symbols: list[int]) -> list[int]:
        """``encode_word``'s merges in O(n log n): candidate pairs (rank, position) in a
        heap, symbols in a linked list (merged-away ones marked -1); an entry whose pair
        has changed since it was pushed is skipped when popped."""
        ranks, sym, n = self._ranks, list(symbols), len(symbols)
        nxt, prv = [*range(1, n), -1], list(range(-1, n - 1))
        heap = [
            (hit[0], i)
            for i in range(n - 1)
            if (hit := ranks.get((sym[i], sym[i + 1]))) is not None
        ]
        heapq.heapify(heap)
        while heap:
            rank, i = heapq.heappop(heap)
            j = nxt[i]
            if sym[i] < 0 or j < 0:
                continue
            hit = ranks.get((sym[i], sym[j]))
            if hit is None or hit[0] != rank:  # stale: the pair here has changed
                continue
            sym[i], sym[j], k = hit[1], -1, nxt[j]
            nxt[i] = k
            if k >= 0:
                prv[k] = i
                if (right := ranks.get((sym[i], sym[k]))) is not None:
                    heapq.heappush(heap, (right[0], i))
            if (p := prv[i]) >= 0 and (left := ranks.get((sym[p], sym[i]))) is not None:
                heapq.heappush(heap, (left[0], p))
        return [s for s in sym if s >= 0]

    def merge_steps(self, word: str) -> list[tuple[list[str], int | None]]:
        """Every segmentation of ``word`` on the way to its encoding.

        Returns [(pieces, rank)]: the characters first (rank None), then one entry after
        each merge, with the rank of the merge that produced it.
        """
        symbols = self.symbols(word)
        steps: list[tuple[list[str], int | None]] = [(self._pieces(symbols), None)]
        while len(symbols) > 1:
            best = self._best_pair(symbols)
            if best is None:
                break
            i, new = best
            rank = self._ranks[symbols[i], symbols[i + 1]][0]
            symbols[i : i + 2] = [new]
            steps.append((self._pieces(symbols), rank))
        return steps

    def _best_pair(self, symbols: Sequence[int]) -> tuple[int, int] | None:
        """(position, new id) of the lowest-rank mergeable pair, leftmost on ties."""
        best_rank, best = len(self._ranks) + 1, None
        for i in range(len(symbols) - 1):
            hit = self._ranks.get((symbols[i], symbols[i + 1]))
            if hit is not None and hit[0] < best_rank:
                best_rank, best = hit[0], (i, hit[1])
        return best

    def _pieces(self, ids: Sequence[int]) -> list[str]:
        return [self.vocab[i] for i in ids]
