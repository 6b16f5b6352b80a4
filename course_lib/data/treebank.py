"""Read Universal Dependencies treebanks (CoNLL-U) into small immutable sentences.

Chapters: dependency parsing (arc-standard, Chen & Manning 2014) and POS tagging.
Each line is checked before the ``conllu`` library parses it, so a malformed file
fails with :class:`ConlluError` naming the file and the line. A :class:`Sentence`
keeps the basic tree only: the words with integer IDs ``1..n`` (HEAD 0 is ROOT);
multiword-token lines (``n-m``, e.g. *don't*) are kept aside in ``multiwords`` and
empty nodes (``n.m``, enhanced graphs only) are left out.
Format: https://universaldependencies.org/format.html
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from course_lib.data.errors import ConlluError, UnknownNameError
from course_lib.data.fetch import fetch, open_text

EWT_SPLITS = {
    "train": "en_ewt-ud-train.conllu",
    "dev": "en_ewt-ud-dev.conllu",
    "test": "en_ewt-ud-test.conllu",
}
_COLUMNS = "ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC"
_ID = re.compile(r"[1-9][0-9]*(?:-[1-9][0-9]*|\.[1-9][0-9]*)?\Z")


@dataclass(frozen=True)
class Sentence:
    """One CoNLL-U sentence, basic tree only; word ``i`` (1-based) is index ``i - 1``.

    heads[i - 1] is the ID of word i's head (0 = ROOT); multiwords holds
    ``(first_id, last_id, surface_form)`` for tokens such as *don't* = do + n't.
    """

    words: tuple[str, ...]
    lemmas: tuple[str, ...]
    upos: tuple[str, ...]
    xpos: tuple[str, ...]
    heads: tuple[int, ...]
    deprels: tuple[str, ...]
    text: str = ""
    sent_id: str = ""
    multiwords: tuple[tuple[int, int, str], ...] = ()

    def __len__(self) -> int:
        return len(self.words)


def _validate(lines: list[str], source: str) -> list[tuple[int, list[str]]]:
    """Check every line; return the sentence blocks with their first line number."""
    blocks: list[tuple[int, list[str]]] = []
    block: list[str] = []
    start, n_words, heads = 0, 0, []  # heads: (line number, head) of the block's words

    def fail(number: int, problem: str) -> ConlluError:
        return ConlluError(f"{source}, line {number}: {problem}")

    def close() -> None:
        nonlocal block, n_words, heads
        if block and n_words == 0:
            raise fail(start, "sentence has no word lines (integer IDs)")
        for number, head in heads:
            if head > n_words:
                raise fail(
                    number, f"HEAD {head} points past the last word ({n_words} words)"
                )
        if block:
            blocks.append((start, block))
        block, n_words, heads = [], 0, []

    for number, line in enumerate(lines, start=1):
        if not line.strip():
            close()
            continue
        if not block:
            start = number
        block.append(line)
        if line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 10:
            hint = " (columns must be separated by tabs)" if len(fields) == 1 else ""
            raise fail(
                number,
                f"expected 10 tab-separated fields ({_COLUMNS}), found "
                f"{len(fields)}{hint}",
            )
        word_id, head = fields[0], fields[6]
        if not _ID.match(word_id):
            raise fail(
                number,
                f"ID {word_id!r} is not an integer, a range n-m or a decimal n.m",
            )
        if not word_id.isdigit():
            continue
        if int(word_id) != n_words + 1:
            raise fail(
                number, f"word ID {word_id} out of order: expected {n_words + 1}"
            )
        if not head.isdigit():
            raise fail(number, f"HEAD {head!r} of word {word_id} is not an integer")
        if head == word_id:
            raise fail(number, f"word {word_id} is its own head")
        if not fields[7] or fields[7] == "_":
            raise fail(number, f"word {word_id} has no DEPREL")
        n_words += 1
        heads.append((number, int(head)))
    close()
    return blocks


def _parse_id(line: list[str], i: int) -> int | tuple[int, str, int]:
    """ID as the conllu library gives it: 3, (1, "-", 2) or (10, ".", 1)."""
    value = line[i]
    if value.isdigit():
        return int(value)
    sep = "-" if "-" in value else "."
    first, last = value.split(sep)
    return (int(first), sep, int(last))


def _parse_head(line: list[str], i: int) -> int | None:
    value = line[i]
    return int(value) if value.isdigit() else None


def read_conllu(path_or_split: str | Path) -> list[Sentence]:
    """Read a CoNLL-U file (or an EWT split name) into a list of sentences.

    path_or_split: a path (``.conllu`` or ``.conllu.gz``) or ``"train" | "dev" | "test"``
    of UD English EWT (fetched and verified first).
    Returns the sentences in file order. Raises :class:`ConlluError` with the line number
    for a malformed line (wrong column count, bad ID, non-integer HEAD, ...).
    """
    import conllu  # the reference parser; imported here to keep the package import light

    if isinstance(path_or_split, str) and path_or_split in EWT_SPLITS:
        path = fetch("ud_english_ewt", EWT_SPLITS[path_or_split])
    else:
        path = _existing(path_or_split)
    with open_text(path) as f:
        lines = f.read().split("\n")
    # The lines are validated above, so IDs and HEADs get quick parsers; the columns
    # the Sentence does not keep stay strings (about twice as fast as the defaults).
    raw = {f: (lambda line, i: line[i]) for f in ("xpos", "feats", "deps", "misc")}
    parsers = {**raw, "id": _parse_id, "head": _parse_head}
    sentences = []
    for start, block in _validate(lines, str(path)):
        try:
            tokens = conllu.parse_token_and_metadata(
                "\n".join(block), field_parsers=parsers
            )
        except conllu.exceptions.ParseException as exc:
            raise ConlluError(f"{path}, sentence at line {start}: {exc}") from exc
        words = [t for t in tokens if isinstance(t["id"], int)]
        multi = [t for t in tokens if isinstance(t["id"], tuple) and t["id"][1] == "-"]
        sentences.append(
            Sentence(
                words=tuple(t["form"] for t in words),
                lemmas=tuple(t["lemma"] for t in words),
                upos=tuple(t["upos"] for t in words),
                xpos=tuple(t["xpos"] for t in words),
                heads=tuple(t["head"] for t in words),
                deprels=tuple(t["deprel"] for t in words),
                text=tokens.metadata.get("text", ""),
                sent_id=tokens.metadata.get("sent_id", ""),
                multiwords=tuple((t["id"][0], t["id"][2], t["form"]) for t in multi),
            )
        )
    return sentences


_SPLIT_HINTS = {"valid": "dev", "validation": "dev", "val": "dev", "training": "train"}


def _existing(path_or_split: str | Path) -> Path:
    """The path of an existing file; a bare name that is none is taken for a split."""
    if not isinstance(path_or_split, (str, os.PathLike)):
        raise TypeError(
            "read_conllu takes a path or an EWT split name (train, dev, test), got "
            f"{type(path_or_split).__name__} {path_or_split!r}"
        )
    path = Path(path_or_split)
    if path.is_file():
        return path
    splits = ", ".join(EWT_SPLITS)
    name = path_or_split if isinstance(path_or_split, str) else None
    if name is not None and (not name.strip() or path.name == name and not path.suffix):
        if not path.is_dir() or not name.strip():
            close = difflib.get_close_matches(name, EWT_SPLITS, n=1, cutoff=0.5)
            hint = _SPLIT_HINTS.get(name.strip().lower(), (close or [None])[0])
            mean = f" Did you mean {hint!r}?" if hint else ""
            raise UnknownNameError(
                f"Unknown EWT split {name!r} (and no file of that name in "
                f"{Path.cwd()}).{mean} Choose one of {splits}, or give a .conllu path."
            )
    if path.is_dir():
        raise IsADirectoryError(
            21, f"{path} is a folder; read_conllu takes a .conllu file", str(path)
        )
    raise FileNotFoundError(
        2,
        f"No CoNLL-U file at {path} (relative paths start at {Path.cwd()}); "
        f"read_conllu takes a .conllu (or .conllu.gz) path or an EWT split: {splits}",
        str(path),
    )


def ewt(split: str) -> list[Sentence]:
    """UD English EWT v2.16, one split: ``"train" | "dev" | "test"`` (fetched, verified).

    Returns 12,544 / 2,001 / 2,077 sentences with 204,577 / 25,147 / 25,094 words.
    """
    if not isinstance(split, str) or split not in EWT_SPLITS:
        raise UnknownNameError(
            f"Unknown EWT split {split!r}; choose one of {', '.join(EWT_SPLITS)}."
        )
    return read_conllu(split)
