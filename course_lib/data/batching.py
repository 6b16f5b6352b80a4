"""Length-bucketed, padded batches: the one implementation every chapter that pads uses.

A batch of sequences of different lengths is one (B, T) tensor, T the longest, the rest
filled with a padding id; the lengths (B,) say where each row's real tokens end, and the
mask ``t < length_b`` (B, T) says it per position. Padding costs compute, so sequences of
similar length go together: the items are sorted by length (stably, so equal lengths keep
the order they came in, e.g. a seeded shuffle) and cut into batches of ``batch_size``.
Sorting only within windows of a few batches keeps some of the shuffle's randomness in
which sentences meet (``window``).

Used by translation (Chapters 7-8), SST-2's classifiers (Chapters 2, 5, 6, 9), the tagger
(Chapter 6) and speech (Chapter 10); each keeps its own seeded order of the batches
across epochs, so its recorded results do not move.

Rows of equal length need no padding: :func:`batches` cuts aligned tensors into one
epoch of minibatches in a seeded random order (word2vec, the parser, the window
classifiers), and :func:`shuffled_batches` is that epoch as a list.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import torch
from torch import Tensor
from torch.nn.utils.rnn import pad_sequence

__all__ = [
    "batches",
    "length_groups",
    "length_mask",
    "pad",
    "pad_with_lengths",
    "shuffled_batches",
]


def length_groups(
    lengths: Sequence[int],
    batch_size: int,
    *,
    order: Sequence[int] | None = None,
    window: int | None = None,
) -> list[list[int]]:
    """Item indices in batches of similar length.

    The items are taken in ``order`` (default 0, 1, …, a permutation of them otherwise),
    sorted by length, stably (ties keep ``order``), within consecutive windows of
    ``window`` items (default: all at once), and cut into batches of ``batch_size`` (the
    last of each window may be smaller). Returns the batches as lists of indices.
    """
    _check_batch_size(batch_size)
    n = len(lengths)
    if order is None:
        order = range(n)
    elif sorted(order) != list(range(n)):
        raise ValueError(
            f"order must be a permutation of the {n} item indices 0..{n - 1}"
        )
    if window is None:
        window = max(n, 1)
    elif not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be an int >= 1 or None; got {window!r}")
    order = list(order)
    groups = []
    for w in range(0, n, window):
        chunk = sorted(order[w : w + window], key=lambda i: lengths[i])
        groups += [chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size)]
    return groups


def pad(
    rows: Sequence[Sequence[int] | Tensor],
    value: int = 0,
    *,
    device: torch.device | str | None = None,
) -> Tensor:
    """Right-pad rows into one batch: (B, T) for rows of ids, (B, T, *F) for tensors of
    frames (T_b, *F); T is the longest row, the rest filled with ``value`` (torch's
    ``pad_sequence``). Lists of ints become long tensors; tensors keep their dtype. Empty
    rows are all padding."""
    if len(rows) == 0:
        raise ValueError("rows is empty: there is nothing to pad")
    tensors = [
        r if isinstance(r, Tensor) else torch.as_tensor(r, dtype=torch.long)
        for r in rows
    ]
    trailing = {tuple(t.shape[1:]) for t in tensors}
    if any(t.dim() == 0 for t in tensors) or len(trailing) > 1:
        shapes = sorted({tuple(t.shape) for t in tensors})
        raise ValueError(
            f"rows must be sequences with the same shape after the first dimension; "
            f"got shapes {shapes}"
        )
    padded = pad_sequence(tensors, batch_first=True, padding_value=value)  # (B, T, ...)
    return padded.to(device)


def pad_with_lengths(
    rows: Sequence[Sequence[int] | Tensor],
    value: int = 0,
    *,
    device: torch.device | str | None = None,
) -> tuple[Tensor, Tensor]:
    """:func:`pad`'s (B, T) batch and the rows' lengths (B,)."""
    lengths = torch.tensor([len(r) for r in rows], dtype=torch.long)  # (B,)
    return pad(rows, value, device=device), lengths.to(device)


def length_mask(lengths: Tensor, T: int | None = None) -> Tensor:
    """The real positions of a padded batch: ``mask[b, t] = t < lengths[b]``, (B, T) bool,
    on ``lengths``' device; T defaults to the longest length."""
    if lengths.dim() != 1:
        raise ValueError(f"lengths must be 1-D (B,); got shape {tuple(lengths.shape)}")
    if T is None:
        T = int(lengths.max()) if lengths.numel() else 0
    return torch.arange(T, device=lengths.device) < lengths[:, None]  # (B, T)


def batches(
    examples: Tensor | Sequence[Tensor],
    batch_size: int,
    *,
    shuffle: bool = True,
    generator: torch.Generator | None = None,
    drop_last: bool = False,
) -> Iterator[tuple[Tensor, ...]]:
    """Mini-batches of aligned tensors (each (P, ...)) -> tuples of (B, ...) slices, one
    epoch, made as they are asked for. Chapter 1 on.

    Shuffled with ``generator`` (a CPU ``torch.Generator``) so that a seed fixes the order.
    """
    tensors = (examples,) if isinstance(examples, Tensor) else tuple(examples)
    if not tensors or any(t.size(0) != tensors[0].size(0) for t in tensors):
        shapes = [str(tuple(t.shape)) for t in tensors]
        raise ValueError(f"examples must share their first dimension, got {shapes}")
    _check_batch_size(batch_size)
    n = tensors[0].size(0)
    order = (
        torch.randperm(n, generator=generator) if shuffle else torch.arange(n)
    )  # (P,)
    for start in range(0, n, batch_size):
        idx = order[start : start + batch_size]  # (B,)
        if drop_last and idx.numel() < batch_size:
            return
        yield tuple(t[idx.to(t.device)] for t in tensors)  # (B, ...) each


def shuffled_batches(
    x: Tensor, y: Tensor, batch_size: int, generator: torch.Generator
) -> list[tuple[Tensor, Tensor]]:
    """One epoch of (x, y) minibatches of ``batch_size`` rows in a fresh random order drawn
    from ``generator`` (on the CPU, so a seed gives the same order on every device): the
    whole epoch of :func:`batches` at once."""
    if len(x) != len(y):
        raise ValueError(f"x and y must have the same rows; got {len(x)} and {len(y)}")
    return list(batches((x, y), batch_size, generator=generator))  # (B, ...) pairs


def _check_batch_size(batch_size: int) -> None:
    if (
        isinstance(batch_size, bool)
        or not isinstance(batch_size, int)
        or batch_size < 1
    ):
        raise ValueError(f"batch_size must be an int >= 1; got {batch_size!r}")
