"""A vocabulary: the bijection token <-> index that every model's embedding table uses.

Chapters: word vectors onward (every model with an embedding or output layer of size V).

Built deterministically from tokens or sentences: the special tokens first, then the
others by descending frequency, ties broken alphabetically. Unknown tokens map to
``<unk>`` when the vocabulary has one, and raise :class:`UnknownTokenError` otherwise.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from course_lib.checks import InputError, read_json

_FORMAT = "course_lib.Vocab"


def _check_split(counter: Counter[str]) -> None:
    """Most entries holding spaces means whole lines were passed as tokens."""
    spaced = [t for t in counter if len(t.split()) > 1]
    if spaced and 2 * len(spaced) > len(counter):
        raise InputError(
            f"Vocab.build got unsplit text: {len(spaced)} of the {len(counter)} distinct "
            f"tokens hold spaces, e.g. {spaced[0][:40]!r}; pass tokens (['the', 'cat']) "
            "or sentences of tokens ([line.split() for line in lines])"
        )


class UnknownTokenError(KeyError):
    """A token outside a vocabulary that has no ``<unk>`` to fall back on."""

    def __str__(self) -> str:  # KeyError would print the message with quotes
        return str(self.args[0]) if self.args else ""


class Vocab:
    """Token <-> index mapping with frequencies and an optional unknown token.

    tokens: the vocabulary in index order, no duplicates.
    counts: frequency of each token (0 when missing). unk: the fallback token, which
    must be in ``tokens``, or None for a closed vocabulary.
    specials: tokens that were reserved rather than counted (for ``save``/``repr``).
    """

    def __init__(
        self,
        tokens: Sequence[str],
        *,
        counts: Mapping[str, int] | None = None,
        unk: str | None = None,
        specials: Sequence[str] = (),
    ) -> None:
        self._tokens = tuple(tokens)
        self._index = {tok: i for i, tok in enumerate(self._tokens)}
        if len(self._index) != len(self._tokens):
            dup = [t for t, c in Counter(self._tokens).items() if c > 1]
            raise ValueError(f"tokens must be unique; repeated: {dup[:10]}")
        if not all(isinstance(t, str) for t in self._tokens):
            raise TypeError("tokens must be strings")
        if unk is not None and unk not in self._index:
            raise ValueError(
                f"unk={unk!r} is not among the tokens; add it or pass unk=None"
            )
        counts = counts or {}
        self._counts = {tok: int(counts.get(tok, 0)) for tok in self._tokens}
        self._unk = unk
        self._specials = tuple(specials)

    @classmethod
    def build(
        cls,
        tokens_or_sentences: Iterable[str] | Iterable[Iterable[str]],
        min_freq: int = 1,
        max_size: int | None = None,
        specials: Sequence[str] = ("<unk>",),
        unk: str | None = "<unk>",
    ) -> Vocab:
        """Count tokens and keep the frequent ones: specials first, then by frequency.

        tokens_or_sentences: tokens (``["the", "cat"]``) or sentences of tokens.
        min_freq: keep tokens seen at least this often (>= 1).
        max_size: at most this many entries in all, specials included.
        specials: reserved tokens placed first, e.g. ``("<unk>", "<pad>", "<bos>")``.
        unk: the fallback for unknown tokens; must be one of ``specials``, or None.
        Ties in frequency are broken alphabetically, so the result is deterministic.
        """
        if isinstance(tokens_or_sentences, str):
            raise TypeError("pass a list of tokens, not one string; split it first")
        if not isinstance(min_freq, int) or min_freq < 1:
            raise ValueError(f"min_freq must be an integer >= 1, got {min_freq!r}")
        specials = tuple(specials)
        if len(set(specials)) != len(specials):
            raise ValueError(f"specials must be unique, got {specials}")
        if unk is not None and unk not in specials:
            raise ValueError(
                f"unk={unk!r} must be one of specials {specials}; "
                "add it to specials or pass unk=None for a closed vocabulary"
            )
        if max_size is not None and max_size < max(len(specials), 1):
            raise ValueError(
                f"max_size={max_size} leaves no room; it counts the "
                f"{len(specials)} specials too"
            )
        counter: Counter[str] = Counter()
        for item in tokens_or_sentences:
            if isinstance(item, str):
                counter[item] += 1
            else:
                counter.update(item)
        _check_split(counter)
        ranked = sorted(
            (t for t, c in counter.items() if c >= min_freq and t not in specials),
            key=lambda t: (-counter[t], t),
        )
        tokens = list(specials) + ranked
        if max_size is not None:
            tokens = tokens[:max_size]
        if not tokens:
            raise ValueError(
                "the vocabulary would be empty: no input tokens (or none with "
                f"frequency >= min_freq={min_freq}) and no specials"
            )
        return cls(tokens, counts=counter, unk=unk, specials=specials)

    def __len__(self) -> int:
        return len(self._tokens)

    def __contains__(self, token: object) -> bool:
        return token in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._tokens)

    def __getitem__(self, token: str) -> int:
        return self.index(token)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Vocab):
            return NotImplemented
        return (self._tokens, self._counts, self._unk, self._specials) == (
            other._tokens,
            other._counts,
            other._unk,
            other._specials,
        )

    def __repr__(self) -> str:
        head = ", ".join(map(repr, self._tokens[:5]))
        more = ", ..." if len(self) > 5 else ""
        return f"Vocab(size={len(self)}, unk={self._unk!r}, tokens=[{head}{more}])"

    @property
    def tokens(self) -> tuple[str, ...]:
        """The tokens in index order."""
        return self._tokens

    @property
    def counts(self) -> dict[str, int]:
        """Frequency of each kept token in the data it was built from (a copy)."""
        return dict(self._counts)

    @property
    def unk(self) -> str | None:
        """The unknown token, or None for a closed vocabulary."""
        return self._unk

    @property
    def unk_index(self) -> int | None:
        """The index of the unknown token, or None when there is none."""
        return None if self._unk is None else self._index[self._unk]

    @property
    def specials(self) -> tuple[str, ...]:
        """The reserved tokens given to :meth:`build`."""
        return self._specials

    def index(self, token: str) -> int:
        """The index of ``token``; unknown tokens give ``unk_index``.

        Raises :class:`UnknownTokenError` (a ``KeyError``) when there is no ``<unk>``.
        """
        i = self._index.get(token)
        if i is not None:
            return i
        if self._unk is None:
            raise UnknownTokenError(
                f"token {token!r} is not in the vocabulary ({len(self)} tokens), which "
                "has no unknown token to map it to; build it with "
                "specials=('<unk>', ...) and unk='<unk>', or check the token first "
                "with `token in vocab`"
            )
        return self._index[self._unk]

    def token(self, i: int) -> str:
        """The token at index ``i`` (0 <= i < len(vocab))."""
        i = int(i)
        if not 0 <= i < len(self._tokens):
            raise IndexError(f"index {i} out of range for a vocabulary of {len(self)}")
        return self._tokens[i]

    lookup_token = token

    def encode(self, tokens: Iterable[str]) -> list[int]:
        """Indices of a sequence of tokens (unknown ones as ``unk_index``)."""
        if isinstance(tokens, str):
            raise TypeError(
                "encode() takes a sequence of tokens, not a string; split it"
            )
        return [self.index(t) for t in tokens]

    def decode(self, ids: Iterable[int]) -> list[str]:
        """Tokens of a sequence of indices (ints, numpy or 0-d tensor elements)."""
        if getattr(ids, "ndim", 1) != 1:
            raise InputError(
                f"decode() takes one sequence of ids (1-D); got shape "
                f"{tuple(ids.shape)}: decode each row, [vocab.decode(row) for row in ids]"
            )
        return [self.token(i) for i in ids]

    def save(self, path: str | Path) -> None:
        """Write the vocabulary as JSON (atomically: a temporary file, then a rename)."""
        path = Path(path)
        data = {
            "format": _FORMAT,
            "version": 1,
            "unk": self._unk,
            "specials": list(self._specials),
            "tokens": list(self._tokens),
            "counts": [self._counts[t] for t in self._tokens],
        }
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, ensure_ascii=False, indent=0)
            os.chmod(tmp, 0o644)  # mkstemp makes 0600 files
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | Path) -> Vocab:
        """Read a vocabulary written by :meth:`save`."""
        data = read_json(path, "vocabulary")
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise ValueError(f"{path} is not a vocabulary written by Vocab.save()")
        tokens = data["tokens"]
        return cls(
            tokens,
            counts=dict(zip(tokens, data["counts"], strict=True)),
            unk=data["unk"],
            specials=data["specials"],
        )
