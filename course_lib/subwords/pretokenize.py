"""Pre-tokenizers: text -> the words a subword model splits further. Chapter 9.

A subword trainer never sees raw text: it sees *words* with counts (Sennrich et al.,
2016, Sec. 3.2, learn merges inside words only). How text becomes words is the
pre-tokenizer's job, and each one here mirrors one of HF ``tokenizers``':

- ``"whitespace_split"``: ``str.split()`` (HF ``WhitespaceSplit``);
- ``"whitespace"``: runs of word characters or of punctuation, ``\\w+|[^\\w\\s]+``
  (HF ``Whitespace``; "don't" -> don ' t);
- ``"byte_level"``: GPT-2's split (Radford et al., 2019) of text into words that keep
  their leading space, then every UTF-8 byte mapped to one printable character with
  ``bytes_to_unicode`` (HF ``ByteLevel(add_prefix_space=False)``). The pieces cover the
  text exactly, so decoding gives back every byte.

Python's ``re`` has no ``\\p{L}``: letters are ``[^\\W\\d_]`` here, which agrees with
GPT-2's Unicode classes on letters, digits and ASCII, and may put a rare numeric symbol
(such as ``²``) with letters where GPT-2 would not; ``"whitespace"``'s ``\\w`` likewise takes
``²`` as a word character and combining marks as punctuation, where HF (Rust's ``\\w``) does
the opposite. Splits still cover the text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from functools import cache

__all__ = [
    "PRE_TOKENIZERS",
    "bytes_to_unicode",
    "pre_tokenize",
    "unicode_to_bytes",
    "word_counts",
]

PRE_TOKENIZERS = ("whitespace_split", "whitespace", "byte_level")

_WHITESPACE = re.compile(r"\w+|[^\w\s]+")
# GPT-2's pattern with \p{L} -> [^\W\d_] and \p{N} -> \d (see the module docstring)
_GPT2 = re.compile(
    r"'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+"
)


@cache
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's map from each of the 256 byte values to a printable character.

    Printable Latin-1 bytes (``!``..``~``, ``¡``..``¬``, ``®``..``ÿ``) map to
    themselves; the 68 others (control bytes, space, ...) to ``chr(256 + k)`` in order,
    so the space byte 0x20 becomes ``Ġ`` (U+0120). Returns ``{byte: character}``.
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1)]
    keep += range(ord("®"), ord("ÿ") + 1)
    table, extra = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


@cache
def unicode_to_bytes() -> dict[str, int]:
    """The inverse of ``bytes_to_unicode``: ``{character: byte}``."""
    return {c: b for b, c in bytes_to_unicode().items()}


def _byte_level(text: str) -> list[str]:
    table = bytes_to_unicode()
    return [
        "".join(table[b] for b in piece.encode("utf-8"))
        for piece in _GPT2.findall(text)
    ]


def pre_tokenize(text: str, kind: str = "whitespace_split") -> list[str]:
    """Split ``text`` into the words a subword model sees (see the module docstring).

    kind: one of ``PRE_TOKENIZERS``. Returns a list of non-empty strings; for
    ``"byte_level"`` they are written in ``bytes_to_unicode`` characters.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}")
    if kind == "whitespace_split":
        return text.split()
    if kind == "whitespace":
        return _WHITESPACE.findall(text)
    if kind == "byte_level":
        return _byte_level(text)
    raise ValueError(f"pre_tokenizer must be one of {PRE_TOKENIZERS}; got {kind!r}")


def word_counts(texts: Iterable[str], kind: str = "whitespace_split") -> Counter[str]:
    """How often each pre-tokenized word occurs in ``texts`` (one string a line).

    This is what BPE learns from (Sennrich et al., 2016, Algorithm 1's ``vocab``).
    """
    if isinstance(texts, str):
        raise TypeError(
            "texts must be an iterable of lines, not one str; wrap it: [text]"
        )
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(pre_tokenize(text, kind))
    return counts
