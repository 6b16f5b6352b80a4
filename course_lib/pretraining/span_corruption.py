r"""T5's span corruption: hide random spans, predict them after sentinels. Chapter 9.

Raffel et al. (2020, §3.1.4 and §3.3.4); CS224N lecture 9. For a sequence of L tokens,
with noise density 0.15 and mean span length 3 (T5's ``random_spans_noise_mask``):

    num_noise = round(L · 0.15)      (clipped to 1 … L − 1)
    num_spans = round(num_noise / 3) (at least 1)

The noise tokens are split into ``num_spans`` spans of random lengths (each >= 1), and so
are the others; the two sets of spans alternate, starting with a kept span. The encoder's
input keeps the kept tokens and writes one sentinel per noise span; the decoder's target is
each sentinel followed by the tokens it hides:

    original  Thank you for inviting me to your party last week
    inputs    Thank you <X> me to your party <Y> week
    targets   <X> for inviting <Y> last

(``round`` is half to even, like TensorFlow's, and both products are computed in float32,
as T5 computes them: at L = 190, 190 · 0.15 is 28.499… in float64 and 28.5000… in float32,
so T5 hides 29 tokens, not 28.)

Shape legend: L sequence length.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

__all__ = ["noise_counts", "random_spans_noise_mask", "rebuild", "span_corrupt"]


def noise_counts(
    length: int, noise_density: float = 0.15, mean_span: float = 3.0
) -> tuple[int, int]:
    """(num_noise_tokens, num_noise_spans) for ``length`` tokens, as T5 computes them."""
    if not isinstance(length, int) or length < 1:
        raise ValueError(f"length must be an int >= 1; got {length!r}")
    if not 0 < noise_density < 1 or mean_span < 1:
        raise ValueError(
            f"need 0 < noise_density < 1 and mean_span >= 1; got {noise_density}, "
            f"{mean_span}"
        )
    length = max(length, 2)
    noise = torch.round(_f32(length) * _f32(noise_density))  # T5 computes in float32
    num_noise = min(max(int(noise), 1), length - 1)
    num_spans = max(int(torch.round(_f32(num_noise) / _f32(mean_span))), 1)
    return num_noise, num_spans


def _f32(value: float) -> Tensor:
    return torch.tensor(value, dtype=torch.float32)


def _segment_lengths(n_items: int, n_segments: int, g: torch.Generator) -> Tensor:
    """Split n_items into n_segments random non-empty runs: (n_segments,) lengths."""
    first = torch.zeros(n_items, dtype=torch.long)  # (n_items,)
    starts = torch.randperm(n_items - 1, generator=g)[: n_segments - 1] + 1
    first[starts] = 1
    segment = first.cumsum(0)  # (n_items,) segment id of each item
    return torch.bincount(segment, minlength=n_segments)  # (n_segments,)


def random_spans_noise_mask(
    length: int,
    noise_density: float = 0.15,
    mean_span: float = 3.0,
    *,
    generator: torch.Generator | None = None,
) -> Tensor:
    """Which of ``length`` positions are noise: bool (L,), spans alternating kept/noise."""
    num_noise, num_spans = noise_counts(length, noise_density, mean_span)
    g = generator if generator is not None else torch.Generator().manual_seed(0)
    n = max(length, 2)
    if num_spans > n - num_noise:  # T5's segmentation fails here too
        raise ValueError(
            f"{num_spans} noise spans need {num_spans} kept spans between them, but only "
            f"{n - num_noise} of {n} tokens are kept: lower noise_density or raise mean_span"
        )
    noise_len = _segment_lengths(num_noise, num_spans, g)  # (S,)
    keep_len = _segment_lengths(n - num_noise, num_spans, g)  # (S,)
    spans = torch.stack([keep_len, noise_len], dim=1).reshape(-1)  # (2S,)
    span_id = torch.repeat_interleave(torch.arange(2 * num_spans), spans)  # (L,)
    return (span_id % 2 == 1)[:length]  # (L,)


def span_corrupt(
    tokens: Sequence[int] | Tensor,
    sentinel_ids: Sequence[int],
    *,
    noise_density: float = 0.15,
    mean_span: float = 3.0,
    generator: torch.Generator | None = None,
) -> tuple[list[int], list[int]]:
    """(inputs, targets) of T5's span corruption of ``tokens`` (L ids).

    sentinel_ids: the ids of <extra_id_0>, <extra_id_1>, … (one per span at least).
    """
    ids = [int(t) for t in tokens]
    noise = random_spans_noise_mask(
        len(ids), noise_density, mean_span, generator=generator
    ).tolist()
    inputs: list[int] = []
    targets: list[int] = []
    span = -1
    for i, (tok, is_noise) in enumerate(zip(ids, noise, strict=True)):
        if is_noise and (i == 0 or not noise[i - 1]):  # a new noise span
            span += 1
            if span >= len(sentinel_ids):
                raise ValueError(
                    f"{span + 1} spans need {span + 1} sentinels; got {len(sentinel_ids)}"
                )
            inputs.append(sentinel_ids[span])
            targets.append(sentinel_ids[span])
        (targets if is_noise else inputs).append(tok)
    return inputs, targets


def rebuild(
    inputs: Sequence[int], targets: Sequence[int], sentinel_ids: Sequence[int]
) -> list[int]:
    """The original sequence from inputs and targets: each sentinel in ``inputs`` is
    replaced by the tokens that follow the same sentinel in ``targets``."""
    where = {s: i for i, s in enumerate(sentinel_ids)}
    spans: dict[int, list[int]] = {}
    current = None
    for tok in targets:
        if tok in where:
            current = tok
            spans[current] = []
        elif current is None:
            raise ValueError("targets must start with a sentinel id")
        else:
            spans[current].append(tok)
    out: list[int] = []
    for tok in inputs:
        if tok in where:
            if tok not in spans:
                raise ValueError(f"sentinel {tok} of the inputs is not in the targets")
            out.extend(spans[tok])
        else:
            out.append(tok)
    return out
