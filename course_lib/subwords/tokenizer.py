"""One ``Tokenizer`` for the chapter's three subword models: text -> ids -> text. Chapter 9.

A tokenizer is a pipeline (the one HF ``tokenizers`` uses): special tokens are cut out of
the text first and map to their own ids; the rest is pre-tokenized into words
(``pretokenize``), and each word is split by the model:

- ``"bpe"``: BPE over characters (Sennrich et al., 2016); a character never seen in
  training is an error unless the model has an ``unk_token``;
- ``"byte_bpe"``: BPE over the 256 byte symbols of GPT-2 (Radford et al., 2019), so that
  no input is ever unknown and decoding gives back the exact text;
- ``"wordpiece"``: greedy longest-match-first with ``##`` pieces (BERT), ``[UNK]`` for a
  word that cannot be split.

``save`` writes JSON atomically (a temporary file renamed into place); ``load`` reads it.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from course_lib.checks import InputError, InputTypeError, read_json
from course_lib.subwords.bpe import BPE
from course_lib.subwords.bpe_train import train_bpe
from course_lib.subwords.pretokenize import (
    PRE_TOKENIZERS,
    bytes_to_unicode,
    pre_tokenize,
    unicode_to_bytes,
    word_counts,
)
from course_lib.subwords.wordpiece import WordPiece
from course_lib.subwords.wordpiece_train import train_wordpiece

__all__ = ["KINDS", "Encoding", "Tokenizer"]

KINDS = ("bpe", "byte_bpe", "wordpiece")
FORMAT = "course_lib.subwords/1"
WORD_CACHE_SIZE = 100_000  # words ``encode`` remembers; when full, it starts again
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Encoding:
    """ids[i] is the id of pieces[i]; words[i] the index of its word (None: a special)."""

    ids: list[int]
    pieces: list[str]
    words: list[int | None]


def _refuse_surrogate(text: str) -> None:
    """Byte-level BPE encodes UTF-8; a lone surrogate (half of a UTF-16 pair) has none."""
    found = _SURROGATE.search(text)
    if found is None:
        return
    at = found.start()
    raise InputError(
        f"text holds a lone surrogate {text[at]!r} at position {at} (near "
        f"{text[max(at - 10, 0) : at + 10]!r}), which is not a character and has no "
        "UTF-8 bytes; it comes from decoding with errors='surrogateescape' or a "
        "broken emoji: remove it, e.g. text.encode('utf-8', 'replace').decode()"
    )


def _warn_small(vocab_size: int, model: BPE | WordPiece) -> None:
    """BPE keeps the specials and the alphabet, as HF does, whatever ``vocab_size``."""
    if vocab_size < len(model.vocab):
        warnings.warn(
            f"vocab_size={vocab_size} is below the {len(model.vocab)} pieces that the "
            "special tokens and the alphabet need: all are kept and no merge is learnt "
            "(as HF tokenizers does); raise vocab_size to learn merges",
            stacklevel=3,
        )


def _check_pipeline(kind: str, pre_tokenizer: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")
    if pre_tokenizer not in PRE_TOKENIZERS:
        raise ValueError(
            f"pre_tokenizer must be one of {PRE_TOKENIZERS}; got {pre_tokenizer!r}"
        )
    if (kind == "byte_bpe") != (pre_tokenizer == "byte_level"):
        raise ValueError("byte_bpe goes with pre_tokenizer='byte_level', and only it")


class Tokenizer:
    """A trained subword tokenizer: ``encode(text)`` -> ``Encoding``, ``decode(ids)`` -> text.

    Build one with ``Tokenizer.train(texts, kind=..., vocab_size=...)`` or ``load``.
    """

    def __init__(
        self,
        model: BPE | WordPiece,
        *,
        kind: str,
        pre_tokenizer: str,
        special_tokens: Sequence[str] = (),
    ) -> None:
        _check_pipeline(kind, pre_tokenizer)
        missing = [s for s in special_tokens if model.token_to_id(s) is None]
        if missing:
            raise ValueError(
                f"special tokens {missing} are not in the model's vocabulary"
            )
        self.model, self.kind, self.pre_tokenizer = model, kind, pre_tokenizer
        self.special_tokens = tuple(special_tokens)
        by_length = sorted(self.special_tokens, key=len, reverse=True)
        self._special_re = (
            re.compile("|".join(map(re.escape, by_length))) if by_length else None
        )
        # word -> ids, kept across calls (as HF's BPE caches words): a corpus splits each
        # distinct word once; the model is frozen, so an entry never goes stale
        self._word_ids: dict[str, list[int]] = {}

    @classmethod
    def train(
        cls,
        texts: Iterable[str],
        *,
        kind: str = "bpe",
        vocab_size: int,
        min_frequency: int = 0,
        special_tokens: Sequence[str] = (),
        unk_token: str | None = None,
        pre_tokenizer: str | None = None,
        end_of_word_suffix: str | None = None,
    ) -> Tokenizer:
        """Learn a ``kind`` model of ``vocab_size`` pieces (specials and alphabet included).

        texts: the training lines. pre_tokenizer: default ``"whitespace_split"``
        (``"byte_level"`` for ``byte_bpe``). unk_token: one of the specials (WordPiece
        needs one, default ``"[UNK]"``). end_of_word_suffix: plain BPE only, e.g. ``</w>``.
        A BPE ``vocab_size`` below the specials and the alphabet keeps them all, with no
        merge, as HF's ``BpeTrainer`` does, and warns (WordPiece raises).
        """
        pre = pre_tokenizer or (
            "byte_level" if kind == "byte_bpe" else "whitespace_split"
        )
        _check_pipeline(kind, pre)
        if end_of_word_suffix and kind != "bpe":
            raise ValueError(
                f"end_of_word_suffix is for kind='bpe' only; got kind={kind!r}"
            )
        counts = word_counts(texts, pre)
        if not counts:
            raise ValueError("the training texts hold no words: the corpus is empty")
        specials = list(special_tokens)
        if kind == "wordpiece":
            unk = unk_token or "[UNK]"
            specials = specials if unk in specials else [unk, *specials]
            model = train_wordpiece(
                counts,
                vocab_size,
                min_frequency=min_frequency,
                special_tokens=specials,
                unk_token=unk,
            )
        else:
            model = train_bpe(
                counts,
                vocab_size,
                min_frequency=min_frequency,
                special_tokens=specials,
                initial_alphabet=bytes_to_unicode().values()
                if kind == "byte_bpe"
                else (),
                unk_token=unk_token,
                end_of_word_suffix=end_of_word_suffix,
            )
        _warn_small(vocab_size, model)
        return cls(model, kind=kind, pre_tokenizer=pre, special_tokens=specials)

    # -- vocabulary ------------------------------------------------------------------
    @property
    def vocab(self) -> tuple[str, ...]:
        """Pieces in id order."""
        return self.model.vocab

    @property
    def vocab_size(self) -> int:
        return len(self.model.vocab)

    def token_to_id(self, piece: str) -> int | None:
        """The id of ``piece``, or None when it is not in the vocabulary."""
        return self.model.token_to_id(piece)

    def id_to_token(self, i: int) -> str:
        """The piece with id ``i``."""
        if not isinstance(i, int) or not 0 <= i < self.vocab_size:
            raise ValueError(
                f"id must be an int in 0..{self.vocab_size - 1}; got {i!r}"
            )
        return self.model.vocab[i]

    def special_id(self, token: str) -> int:
        """The id of the special token ``token``; a ValueError names the known ones."""
        if token not in self.special_tokens:
            raise ValueError(
                f"unknown special token {token!r}; this tokenizer has "
                f"{list(self.special_tokens)} (add it with special_tokens= when training)"
            )
        return self.model.token_to_id(token)

    # -- text -> ids -> text -----------------------------------------------------------
    def split_words(self, text: str) -> list[tuple[str, bool]]:
        """``text`` as [(word, is_special)]: specials cut out first, the rest pre-tokenized."""
        if not isinstance(text, str):
            raise InputTypeError(f"text must be a str; got {type(text).__name__}")
        try:
            return self._split_words(text)
        except UnicodeEncodeError:  # byte-level: a lone surrogate has no UTF-8 bytes
            _refuse_surrogate(text)
            raise

    def _split_words(self, text: str) -> list[tuple[str, bool]]:
        out, start = [], 0
        for m in self._special_re.finditer(text) if self._special_re else ():
            out += [
                (w, False)
                for w in pre_tokenize(text[start : m.start()], self.pre_tokenizer)
            ]
            out.append((m.group(), True))
            start = m.end()
        out += [(w, False) for w in pre_tokenize(text[start:], self.pre_tokenizer)]
        return out

    def encode(self, text: str) -> Encoding:
        """``text`` -> ids, pieces and word indices (each distinct word split once)."""
        ids: list[int] = []
        words: list[int | None] = []
        cache = self._word_ids
        for w, (word, special) in enumerate(self.split_words(text)):
            if special:
                ids.append(self.model.token_to_id(word))
                words.append(None)
                continue
            if word not in cache:
                if len(cache) >= WORD_CACHE_SIZE:
                    cache.clear()
                cache[word] = self.model.encode_word(word)
            ids += cache[word]
            words += [w] * len(cache[word])
        return Encoding(ids, [self.model.vocab[i] for i in ids], words)

    def decode(self, ids: Sequence[int]) -> str:
        """ids -> text. Exact for ``byte_bpe``; BPE with an end-of-word suffix and
        WordPiece restore word boundaries (one space between words); plain BPE without a
        suffix cannot, and joins the pieces with spaces (as ``tokenizers`` does)."""
        pieces = [self.id_to_token(int(i)) for i in ids]
        if self.kind == "byte_bpe":
            table = unicode_to_bytes()
            data = b"".join(
                p.encode("utf-8")
                if p in self.special_tokens
                else bytes(table[c] for c in p)
                for p in pieces
            )
            return data.decode("utf-8", errors="replace")
        if self.kind == "wordpiece":
            return " ".join(pieces).replace(" " + self.model.prefix, "")
        suffix = self.model.end_of_word_suffix
        if suffix:
            text = "".join(p + " " if p in self.special_tokens else p for p in pieces)
            return " ".join(text.replace(suffix, " ").split())
        return " ".join(pieces)

    # -- files -------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The tokenizer as plain JSON data (what ``save`` writes)."""
        data = {
            "format": FORMAT,
            "kind": self.kind,
            "pre_tokenizer": self.pre_tokenizer,
            "special_tokens": list(self.special_tokens),
            "vocab": list(self.model.vocab),
            "unk_token": self.model.unk_token,
        }
        if isinstance(self.model, BPE):
            data["merges"] = [list(m) for m in self.model.merges]
            data["merge_counts"] = list(self.model.merge_counts)
            data["end_of_word_suffix"] = self.model.end_of_word_suffix
        else:
            data["prefix"] = self.model.prefix
        return data

    @classmethod
    def from_dict(cls, data: dict) -> Tokenizer:
        """The inverse of ``to_dict``."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not a tokenizer file: expected format {FORMAT!r}")
        if data["kind"] == "wordpiece":
            model = WordPiece(tuple(data["vocab"]), data["unk_token"], data["prefix"])
        else:
            model = BPE(
                tuple(data["vocab"]),
                tuple(tuple(m) for m in data["merges"]),
                tuple(data["merge_counts"]),
                data["unk_token"],
                data["end_of_word_suffix"],
            )
        return cls(
            model,
            kind=data["kind"],
            pre_tokenizer=data["pre_tokenizer"],
            special_tokens=data["special_tokens"],
        )

    def save(self, path: str | os.PathLike) -> Path:
        """Write the tokenizer as JSON to ``path`` atomically; returns the path."""
        path = Path(path)
        text = json.dumps(self.to_dict(), ensure_ascii=False, indent=1)
        fd, tmp = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
        )
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> Tokenizer:
        """Read a tokenizer written by ``save``."""
        return cls.from_dict(read_json(path, "tokenizer"))

    def __repr__(self) -> str:
        return f"Tokenizer(kind={self.kind!r}, vocab_size={self.vocab_size})"
