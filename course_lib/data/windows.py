"""Context windows: the ids at fixed offsets around every position of a stream, once.

Every model of the course that looks at a word's neighbours takes them this way: word2vec's
skip-gram pairs and CBOW contexts (offsets -W..-1, 1..W), the fixed-window language model
(-W..-1; Bengio et al., 2003), *Sequence Models*' context choices (left, both sides, a
random nearby word) and the window classifier (-w..w; Collobert et al., 2011). A window
never reaches past the stream's ends nor, given ``segments``, into another sentence: such a
slot holds ``pad_id`` and is False in the mask.

Shape legend: N positions, W offsets.
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["context_at"]


def context_at(
    ids: Tensor, offsets: Tensor, pad_id: int, segments: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """ids[n + offsets[n, w]] for every position n: (N, W) ids and (N, W) bool mask.

    ids: (N,) a stream; offsets: (W,) the same for every position, or (N, W) per position;
    segments: (N,) a sentence id per position (a window stays inside its sentence).
    A slot outside the stream or its sentence holds ``pad_id`` and is False in the mask.
    """
    N = ids.numel()
    pos = torch.arange(N, device=ids.device)[:, None] + offsets.to(ids.device)  # (N, W)
    inside = (pos >= 0) & (pos < N)  # (N, W)
    pos = pos.clamp(0, max(N - 1, 0))  # (N, W)
    if segments is not None:
        inside &= segments[pos] == segments[:, None]  # (N, W)  same sentence
    return ids[pos].masked_fill(~inside, pad_id), inside  # (N, W), (N, W)
