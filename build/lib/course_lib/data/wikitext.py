"""WikiText-2 (Merity et al., 2017): lines, language-model tokens, word2vec sentences.

Chapters: n-gram and neural language models (tokens with ``<eos>``, as PyTorch's
``word_language_model`` example) and word2vec (lower-cased sentences without headings,
the corpus of the gensim baseline in ``shared/data/README.md``).
Each line of the files is one paragraph, already tokenized, rare words as ``<unk>``;
headings look like `` = Title = `` and an empty line is a single space.
"""

from __future__ import annotations

from course_lib.data.errors import UnknownNameError
from course_lib.data.fetch import fetch, open_text

SPLITS = ("train", "valid", "test")
EOS = "<eos>"


def wikitext_lines(split: str) -> list[str]:
    """The raw lines of one split (``"train" | "valid" | "test"``), without ``\\n``.

    Returns 36,718 / 3,760 / 4,358 lines; empty paragraphs are kept as ``" "``.
    """
    if split not in SPLITS:
        raise UnknownNameError(
            f"Unknown WikiText-2 split {split!r}; choose one of {', '.join(SPLITS)}."
        )
    with open_text(fetch("wikitext-2", f"{split}.txt")) as f:
        return [line.removesuffix("\n") for line in f]


def wikitext_tokens(split: str, add_eos: bool = True) -> list[str]:
    """All tokens of one split in order, one ``<eos>`` after every line when ``add_eos``.

    The ``word_language_model`` convention: train/valid/test have 2,088,628 / 217,646 /
    245,569 tokens with ``<eos>`` (one per line, empty lines included).
    """
    tokens: list[str] = []
    for line in wikitext_lines(split):
        tokens.extend(line.split())
        if add_eos:
            tokens.append(EOS)
    return tokens


def wikitext_sentences(
    split: str, lowercase: bool = True, skip_headings: bool = True
) -> list[list[str]]:
    """One token list per non-empty line (paragraph), for word2vec-style training.

    lowercase: lower-case every token (``<unk>`` stays ``<unk>``).
    skip_headings: leave out lines that start with ``" = "``.
    Returns 17,556 sentences with 2,007,146 tokens for train with the defaults.
    """
    sentences = []
    for line in wikitext_lines(split):
        if not line.strip() or (skip_headings and line.startswith(" = ")):
            continue
        sentences.append((line.lower() if lowercase else line).split())
    return sentences
