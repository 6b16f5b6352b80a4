r"""BERT's second objective, next-sentence prediction (Devlin et al., 2019, §3.1). Chapter 9.

Each example is two segments, ``[CLS] A [SEP] B [SEP]``: half the time B is the text that
follows A (label 1, "IsNext"), half the time a segment from elsewhere in the corpus (label 0,
"NotNext"), and a classifier on h_[CLS] predicts which. Here a paragraph is cut in two
halves: A is its first half, B its second half or the second half of another paragraph.
A B drawn from another paragraph is usually on another topic, so the task can be solved in
part by words that A and B share, without any sense of order or coherence; ALBERT (Lan et
al., 2020) makes that argument and replaces the task by sentence order, and RoBERTa (Liu et
al., 2019) drops it. :func:`shared_word_share` measures that shortcut.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from course_lib.runtime import run_seed

__all__ = ["nsp_examples", "nsp_ids", "shared_word_share"]

Pair = tuple[int, tuple[list[int], list[int]]]


def _check_nsp(paragraphs: Sequence[Sequence[int]], half: int) -> None:
    if not isinstance(half, int) or half < 1:
        raise ValueError(f"half must be an int >= 1; got {half!r}")
    n_long = sum(len(p) >= 2 * half for p in paragraphs)
    if n_long < 2:
        raise ValueError(
            f"need at least 2 paragraphs of {2 * half} or more ids; got {n_long}"
        )


def nsp_examples(
    paragraphs: Sequence[Sequence[int]], *, half: int, seed: int = 0
) -> list[Pair]:
    """(label, (A, B)) for every paragraph of at least 2 · ``half`` ids: A its first
    ``half`` ids; with probability ½ B the next ``half`` (label 1, IsNext), else the
    second half of another paragraph drawn at random (label 0, NotNext)."""
    _check_nsp(paragraphs, half)
    long = [list(p) for p in paragraphs if len(p) >= 2 * half]  # A and B both fit
    g = torch.Generator().manual_seed(run_seed(seed))
    examples = []
    for i, p in enumerate(long):
        is_next = bool(torch.rand((), generator=g) < 0.5)
        j = i
        while not is_next and j == i:  # another paragraph
            j = int(torch.randint(len(long), (), generator=g))
        examples.append((int(is_next), (p[:half], long[j][half : 2 * half])))
    return examples


def nsp_ids(
    pair: tuple[Sequence[int], Sequence[int]], *, cls_id: int, sep_id: int
) -> list[int]:
    """``[CLS] A [SEP] B [SEP]`` as ids."""
    a, b = pair
    return [cls_id, *a, sep_id, *b, sep_id]


def shared_word_share(pair: tuple[Sequence[int], Sequence[int]]) -> float:
    """The share of B's ids that also occur in A: a lexical-overlap score that knows nothing
    of order, the shortcut a topic change offers."""
    a, b = pair
    seen = set(a)
    return sum(t in seen for t in b) / max(len(b), 1)
