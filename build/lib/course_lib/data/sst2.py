"""SST-2, the binary Stanford Sentiment Treebank (Socher et al., 2013). Chapters 2, 6, 9.

``sst2(split)`` returns ``(label, sentence)`` pairs: label 0 negative, 1 positive; the text
is lower-cased and PTB-tokenized (``n't``, ``'s`` split; ``-lrb-`` for parentheses), so
``sentence.split()`` gives the words. train / dev / test = 67,349 / 872 / 1,821 (GLUE's
train and dev, and the labelled test set of Kim, 2014 and Tai et al., 2015); train holds
phrases as well as whole sentences. No formal licence: download only, never committed.
Each file is a header line, then ``label<TAB>sentence``.
"""

from __future__ import annotations

from course_lib.data.errors import DataError, UnknownNameError
from course_lib.data.fetch import fetch, open_text

__all__ = ["SST2_SPLITS", "read_sst2", "sst2"]

SST2_SPLITS = ("train", "dev", "test")


def read_sst2(path) -> list[tuple[int, str]]:
    """Parse one SST-2 file: a header, then ``label<TAB>sentence`` with label 0 or 1.

    A bad line raises :class:`DataError` naming the file and the line number.
    """
    pairs = []
    with open_text(path) as f:
        for number, line in enumerate(f, start=1):
            line = line.removesuffix("\n").removesuffix("\r")
            if number == 1:
                if not line.startswith("label\t"):
                    raise DataError(
                        f"{path}, line 1: expected the header 'label<TAB>sentence', "
                        f"found {line[:40]!r}."
                    )
                continue
            fields = line.split("\t")
            if len(fields) != 2 or fields[0] not in ("0", "1") or not fields[1].strip():
                raise DataError(
                    f"{path}, line {number}: expected 'label<TAB>sentence' with label "
                    f"0 or 1 and a non-empty sentence, found {line[:60]!r}."
                )
            pairs.append((int(fields[0]), fields[1]))
    return pairs


def sst2(split: str) -> list[tuple[int, str]]:
    """The ``(label, sentence)`` pairs of ``"train" | "dev" | "test"``, in file order."""
    if split not in SST2_SPLITS:
        raise UnknownNameError(
            f"Unknown SST-2 split {split!r}; choose one of {', '.join(SST2_SPLITS)}."
        )
    return read_sst2(fetch("sst2", f"{split}.tsv"))
