"""Parallel sentence pairs for the sequence-to-sequence chapters.

``translation_pairs("tatoeba_eng_fra")``: 167,130 English-French pairs (Tatoeba via
manythings.org, CC BY 2.0 FR, attribution "www.manythings.org/anki and tatoeba.org"),
with the French no-break spaces (U+202F, U+00A0) before ``! ? : ;`` made plain spaces.
``translation_pairs("multi30k_en_de", split)``: Multi30k English-German captions,
train / val / test_2016_flickr = 29,000 / 1,014 / 1,000 pairs. Multi30k is not openly
licensed (non-commercial research and education only): it is downloaded, never copied.
"""

from __future__ import annotations

import gzip

from course_lib.data.errors import DataError, UnknownNameError
from course_lib.data.fetch import fetch, open_text

MULTI30K_SPLITS = ("train", "val", "test_2016_flickr")
_ALIASES = {"tatoeba": "tatoeba_eng_fra", "multi30k": "multi30k_en_de"}
_SPACES = str.maketrans({"\u202f": " ", "\u00a0": " "})


def translation_pairs(name: str, split: str | None = None) -> list[tuple[str, str]]:
    """Sentence pairs ``(source, target)`` of a parallel corpus, in file order.

    name: ``"tatoeba_eng_fra"`` (or ``"tatoeba"``): English -> French, no split;
    ``"multi30k_en_de"`` (or ``"multi30k"``): English -> German, split one of
    ``"train" | "val" | "test_2016_flickr"`` (``"test"`` is accepted for the last).
    Returns a list of ``(source, target)`` strings without line ends.
    """
    dataset = _ALIASES.get(name, name) if isinstance(name, str) else name
    if dataset == "tatoeba_eng_fra":
        if split not in (None, "all"):
            raise UnknownNameError(
                f"Tatoeba has no official split; got split={split!r}. Call "
                "translation_pairs('tatoeba_eng_fra') and split the pairs yourself."
            )
        return _tatoeba()
    if dataset == "multi30k_en_de":
        split = "test_2016_flickr" if split == "test" else split
        if not isinstance(split, str) or split not in MULTI30K_SPLITS:
            raise UnknownNameError(
                f"Unknown Multi30k split {split!r}; choose one of "
                f"{', '.join(MULTI30K_SPLITS)}."
            )
        return _multi30k(split)
    raise UnknownNameError(
        f"Unknown parallel corpus {name!r}; choose 'tatoeba_eng_fra' or 'multi30k_en_de'."
    )


def _tatoeba() -> list[tuple[str, str]]:
    path = fetch("tatoeba_eng_fra", "fra.txt")
    pairs = []
    with open_text(path) as f:
        for number, line in enumerate(f, start=1):
            fields = line.removesuffix("\n").translate(_SPACES).split("\t")
            if len(fields) != 2:
                raise DataError(
                    f"{path}, line {number}: expected 2 tab-separated fields "
                    f"(English, French), found {len(fields)}."
                )
            pairs.append((fields[0], fields[1]))
    return pairs


def _multi30k(split: str) -> list[tuple[str, str]]:
    sides = []
    for lang in ("en", "de"):
        path = fetch("multi30k_en_de", f"{split}.{lang}.gz")
        with gzip.open(path, "rt", encoding="utf-8", newline="\n") as f:
            sides.append([line.removesuffix("\n") for line in f])
    if len(sides[0]) != len(sides[1]):
        raise DataError(
            f"Multi30k {split}: {len(sides[0])} English but {len(sides[1])} German "
            "lines; the files do not align. Fix: delete the cached copies and fetch again."
        )
    return list(zip(*sides, strict=True))
