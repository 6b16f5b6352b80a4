"""Pre-tokenizers: text -> the words a subword model splits further. Chapter 9.

A subword trainer never sees raw text: it sees *words* with counts (Sennrich et al.,
2016, Sec. 3.2, learn merges inside words only). How text becomes words is the
pre-tokenizer's job, and each one here mirrors one of HF ``tokenizers``':

- ``"whitespace_split"``: split at runs of Unicode White_Space (HF ``WhitespaceSplit``;
  ``str.split()`` except that the separators U+001C-U+001F stay inside words);
- ``"whitespace"``: runs of word characters or of punctuation, ``\\w+|[^\\w\\s]+``
  (HF ``Whitespace``; "don't" -> don ' t);
- ``"byte_level"``: GPT-2's split (Radford et al., 2019) of text into words that keep
  their leading space, then every UTF-8 byte mapped to one printable character with
  ``bytes_to_unicode`` (HF ``ByteLevel(add_prefix_space=False)``). The pieces cover the
  text exactly, so decoding gives back every byte.

Python's ``re`` has no ``\\p{L}``: the classes are built once from ``unicodedata``
(letters L*, numbers N*, whitespace = Unicode's White_Space; for ``"whitespace"`` the word
characters of Rust's ``\\w``: L*, M*, Nd, Nl, Pc, the joiners and the circled letters).
They agree with ``tokenizers`` wherever this Python's Unicode tables (``unicodedata.
unidata_version``) and Rust's agree, i.e. on every character except those assigned after.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
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

# Unicode's White_Space property (what \\s means to tokenizers' Rust regexes)
_WS = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# str.split() takes these four for whitespace too; Unicode (and tokenizers) do not
_INFORMATION_SEPARATORS = "\x1c\x1d\x1e\x1f"
# Other_Alphabetic symbols that Rust's \\w takes as word characters, besides the joiners
_ALPHABETIC_SYMBOLS = (
    "\u200c\u200d\u24b6-\u24e9\U0001f130-\U0001f149\U0001f150-\U0001f169"
)
_ALPHABETIC_SYMBOLS += "\U0001f170-\U0001f189"


# planes 4-13 hold no assigned character, planes 15-16 only private use (neither L, M, N)
_ASSIGNED = (range(0x40000), range(0xE0000, 0xE1000))


@cache
def _classes() -> dict[str, str]:
    """Regex class bodies (ranges of ``\\UXXXXXXXX``) for letters, numbers, word chars."""
    groups: dict[str, list[list[int]]] = {"L": [], "N": [], "W": []}
    for span in _ASSIGNED:
        cats = [unicodedata.category(chr(cp)) for cp in span]
        cp = span.start
        for cat, run in itertools.groupby(cats):  # runs of one category
            end = cp + sum(1 for _ in run)
            names = "L" if cat[0] == "L" else "N" if cat[0] == "N" else ""
            if cat[0] in "LM" or cat in ("Nd", "Nl", "Pc"):
                names += "W"
            for name in names:
                ranges = groups[name]
                if ranges and ranges[-1][1] == cp:
                    ranges[-1][1] = end
                else:
                    ranges.append([cp, end])
            cp = end
    return {
        name: "".join(f"\\U{a:08x}-\\U{b - 1:08x}" for a, b in ranges)
        for name, ranges in groups.items()
    }


# the same classes restricted to ASCII, where they are exact: a fast path for ASCII text
_ASCII = {"L": "A-Za-z", "N": "0-9", "W": "A-Za-z0-9_", "WS": "\t\n\x0b\x0c\r "}


@cache
def _pattern(kind: str, ascii_only: bool = False) -> re.Pattern:
    c = _ASCII if ascii_only else {**_classes(), "WS": _WS}
    L, N, WS = c["L"], c["N"], c["WS"]
    W = c["W"] if ascii_only else c["W"] + _ALPHABETIC_SYMBOLS
    if kind == "whitespace":  # tokenizers' Whitespace: \\w+|[^\\w\\s]+
        return re.compile(f"[{W}]+|[^{W}{WS}]+")
    # GPT-2 (Radford et al., 2019), as tokenizers' ByteLevel writes it:
    # 's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+
    return re.compile(
        f"'s|'t|'re|'ve|'m|'ll|'d| ?[{L}]+| ?[{N}]+| ?[^{WS}{L}{N}]+"
        f"|[{WS}]+(?![^{WS}])|[{WS}]+"
    )


@cache
def _ws_run() -> re.Pattern:
    return re.compile(f"[{_WS}]+")


def _split(text: str, kind: str) -> list[str]:
    return _pattern(kind, text.isascii()).findall(text)


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


@cache
def _latin1_to_gpt2() -> dict[int, str]:
    """``str.translate`` table: a byte read as Latin-1 -> its ``bytes_to_unicode`` char."""
    return dict(bytes_to_unicode())


def _byte_level(text: str) -> list[str]:
    table = _latin1_to_gpt2()
    return [
        piece.encode("utf-8").decode("latin-1").translate(table)
        for piece in _split(text, "byte_level")
    ]


def pre_tokenize(text: str, kind: str = "whitespace_split") -> list[str]:
    """Split ``text`` into the words a subword model sees (see the module docstring).

    kind: one of ``PRE_TOKENIZERS``. Returns a list of non-empty strings; for
    ``"byte_level"`` they are written in ``bytes_to_unicode`` characters.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}")
    if kind == "whitespace_split":  # Unicode's White_Space; str.split() adds \x1c-\x1f
        if any(c in text for c in _INFORMATION_SEPARATORS):
            return [w for w in _ws_run().split(text) if w]
        return text.split()
    if kind == "whitespace":
        return _split(text, "whitespace")
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
