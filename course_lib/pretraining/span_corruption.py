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

For pretraining, :func:`span_batch` corrupts every row of a batch of blocks and frames the
pair as an encoder-decoder reads it, src = inputs + <eos> and tgt = <bos> + targets + <eos>;
:func:`span_corruption_objective` gives :func:`~course_lib.pretraining.distributed.pretrain`
the model's teacher-forced cross-entropy on that pair, a fresh corruption every step.

(``round`` is half to even, like TensorFlow's, and both products are computed in float32,
as T5 computes them: at L = 190, 190 · 0.15 is 28.499… in float64 and 28.5000… in float32,
so T5 hides 29 tokens, not 28.)

Shape legend: L sequence length, B batch, S source length, T target length.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib.runtime import run_seed

__all__ = [
    "noise_counts",
    "random_spans_noise_mask",
    "rebuild",
    "span_batch",
    "span_corrupt",
    "span_corruption_objective",
]


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


def _check_spans(n: int, num_noise: int, num_spans: int) -> None:
    if num_spans > n - num_noise:  # T5's segmentation fails here too
        raise ValueError(
            f"{num_spans} noise spans need {num_spans} kept spans between them, but only "
            f"{n - num_noise} of {n} tokens are kept: lower noise_density or raise mean_span"
        )


def random_spans_noise_mask(
    length: int,
    noise_density: float = 0.15,
    mean_span: float = 3.0,
    *,
    generator: torch.Generator | None = None,
) -> Tensor:
    """Which of ``length`` positions are noise: bool (L,), spans alternating kept/noise."""
    g = (
        generator
        if generator is not None
        else torch.Generator().manual_seed(run_seed(0))
    )
    return _noise_masks(1, length, noise_density, mean_span, g)[0]  # (L,)


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


def span_batch(
    blocks: Tensor,
    sentinel_ids: Sequence[int],
    *,
    bos_id: int,
    eos_id: int,
    pad_id: int,
    noise_density: float = 0.15,
    mean_span: float = 3.0,
    generator: torch.Generator | None = None,
) -> tuple[Tensor, Tensor]:
    """Span-corrupt each row of ``blocks`` (B, L): src (B, S) = inputs + <eos> and
    tgt (B, T) = <bos> + targets + <eos>, each row as :func:`span_corrupt` makes it.

    Rows of one length get the same noise counts, so every row's inputs have
    L − noise + spans ids and its targets noise + spans: the batch is corrupted at once,
    from the same draws as one call of :func:`span_corrupt` a row, and never needs
    ``pad_id`` (taken so that one framing serves every objective)."""
    if blocks.dim() != 2 or blocks.size(0) < 1 or blocks.size(1) < 2:
        raise ValueError(
            f"blocks must be (B >= 1, L >= 2) ids; got {tuple(blocks.shape)}"
        )
    del pad_id  # no padding: every row has the same lengths
    g = (
        generator
        if generator is not None
        else torch.Generator().manual_seed(run_seed(0))
    )
    ids = blocks.cpu().long()  # (B, L)
    B, L = ids.shape
    noise = _noise_masks(B, L, noise_density, mean_span, g)  # (B, L) bool
    starts = noise & ~F.pad(noise[:, :-1], (1, 0))  # (B, L) a noise span begins
    spans = int(starts[0].sum())
    if spans > len(sentinel_ids):
        raise ValueError(
            f"{spans} spans need {spans} sentinels; got {len(sentinel_ids)}"
        )
    table = torch.tensor(list(sentinel_ids)[:spans], dtype=torch.long)
    sentinel = table[(starts.cumsum(1) - 1).clamp(min=0)]  # (B, L) the span's sentinel
    # two slots a position: its sentinel where a span starts, then its token
    slots = torch.stack([sentinel, ids], dim=2).reshape(B, 2 * L)  # (B, 2L)
    in_src = torch.stack([starts, ~noise], dim=2).reshape(B, 2 * L)
    in_tgt = torch.stack([starts, noise], dim=2).reshape(B, 2 * L)
    inputs = slots[in_src].view(B, -1)  # (B, L - noise + spans)
    targets = slots[in_tgt].view(B, -1)  # (B, noise + spans)
    eos = torch.full((B, 1), eos_id, dtype=torch.long)
    bos = torch.full((B, 1), bos_id, dtype=torch.long)
    return torch.cat([inputs, eos], 1), torch.cat([bos, targets, eos], 1)


def _noise_masks(
    rows: int, length: int, noise_density: float, mean_span: float, g: torch.Generator
) -> Tensor:
    """``rows`` masks of :func:`random_spans_noise_mask` at once, from the same draws
    in the same order (each row's two ``randperm``): bool (rows, length)."""
    num_noise, num_spans = noise_counts(length, noise_density, mean_span)
    n = max(length, 2)
    _check_spans(n, num_noise, num_spans)
    cuts = [
        torch.randperm(items - 1, generator=g)[: num_spans - 1] + 1
        for _ in range(rows)
        for items in (num_noise, n - num_noise)
    ]
    lengths = []  # (rows, num_spans) of noise, then of kept tokens
    for items, row_cuts in ((num_noise, cuts[0::2]), (n - num_noise, cuts[1::2])):
        first = torch.zeros(rows, items, dtype=torch.long)
        first.scatter_(1, torch.stack(row_cuts), 1)
        segment = first.cumsum(1)  # (rows, items) the segment of each item
        count = torch.zeros(rows, num_spans, dtype=torch.long)
        lengths.append(count.scatter_add_(1, segment, torch.ones_like(segment)))
    spans = torch.stack([lengths[1], lengths[0]], dim=2).reshape(rows, -1)  # (rows, 2S)
    ends = spans.cumsum(1)  # (rows, 2S) where each kept or noise span ends
    position = torch.arange(n).expand(rows, n).contiguous()
    span_id = torch.searchsorted(ends, position, right=True)  # (rows, n)
    return (span_id % 2 == 1)[:, :length]


def span_corruption_objective(
    *, sentinel_ids: Sequence[int], **framing: float
) -> Callable[[nn.Module, Tensor], Tensor]:
    """An objective for :func:`~course_lib.pretraining.distributed.pretrain`: corrupt
    each batch of blocks (B, L) afresh with :func:`span_batch` (``framing``: its
    ``bos_id``, ``eos_id``, ``pad_id`` and optional ``noise_density``, ``mean_span``)
    and return the encoder-decoder's ``loss(src, tgt)``, the mean cross-entropy of the
    targets given the corrupted text (T5's objective, Raffel et al., 2020, §3.1.4). Each
    batch's corruption is seeded from torch's global RNG, which checkpoints save; like
    ``mlm_objective`` it calls ``loss``, not ``forward``, so it runs on one process."""
    sentinels = tuple(sentinel_ids)
    # a wrong or missing option fails here, not at the first step of pretraining
    span_batch(torch.zeros(1, 2, dtype=torch.long), sentinels, **framing)

    def objective(model: nn.Module, blocks: Tensor) -> Tensor:
        seed = int(torch.randint(0, 2**62, (1,)))  # the global RNG's next draw
        g = torch.Generator().manual_seed(run_seed(seed))
        src, tgt = span_batch(blocks, sentinels, generator=g, **framing)
        return model.loss(src.to(blocks.device), tgt.to(blocks.device))

    return objective
