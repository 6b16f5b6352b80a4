"""SST-2's (label, sentence) pairs as padded, length-bucketed batches (Chapters 2, 6, 9)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from course_lib.data.batching import length_groups, pad_with_lengths
from course_lib.runtime import run_seed

Encode = Callable[[str], list[int]]


@dataclass(frozen=True)
class LabelledBatch:
    """Right-padded ids, their lengths, the labels and each row's place in the input."""

    tokens: Tensor  # (B, T)
    lengths: Tensor  # (B,)
    labels: Tensor  # (B,)
    index: Tensor | None = None  # (B,) position of each row in the pairs batched


def labelled_batches(
    pairs: Sequence[tuple[int, str]],
    encode: Encode,
    *,
    batch_size: int,
    pad_id: int,
    shuffle: bool = False,
    seed: int = 0,
    max_len: int | None = None,
) -> list[LabelledBatch]:
    """Batches of ``(label, sentence)`` pairs, encoded with ``encode`` and padded.

    Sentences are sorted by length inside windows of 50 batches (little padding);
    ``shuffle`` shuffles pairs first and batches after, with ``seed``; ``max_len`` truncates.
    Each batch's ``index`` gives its rows' positions in ``pairs``.
    """
    if not pairs:
        raise ValueError("pairs is empty: nothing to batch")
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be an int >= 1; got {batch_size!r}")
    g = torch.Generator().manual_seed(run_seed(seed))
    n = len(pairs)
    order = torch.randperm(n, generator=g).tolist() if shuffle else None
    ids = [(encode(sentence) or [pad_id])[:max_len] for _, sentence in pairs]
    batches = []
    for group in length_groups(
        [len(x) for x in ids], batch_size, order=order, window=batch_size * 50
    ):
        tokens, lengths = pad_with_lengths([ids[i] for i in group], pad_id)  # (B, T)
        labels = torch.tensor([pairs[i][0] for i in group])  # (B,)
        batches.append(LabelledBatch(tokens, lengths, labels, torch.tensor(group)))
    if shuffle:
        batches = [batches[i] for i in torch.randperm(len(batches), generator=g)]
    return batches
