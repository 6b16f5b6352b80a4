"""Two mask bugs of lecture-note Transformer code: both run silently when two sizes agree.

Chapter 8, "Debugging a Transformer" (:mod:`course_lib.transformer.bugs`). Masks follow the
package's convention (:mod:`course_lib.transformer.masks`): bool, True = may attend,
broadcast against scores (B, H, T_q, T_k).

7. The cross-attention mask built from the *target's* padding and laid out (B, S, T),
   keys before queries, where the scores are (B, H, T, S): when S = T it broadcasts and
   masks the wrong positions (the decoder attends to the source's pads); when S ≠ T it
   fails. The source's padding is what cross-attention must hide, (B, 1, 1, S).
8. A (B, T_q, T_k) mask applied to (B, H, T_q, T_k) scores: broadcasting aligns trailing
   dimensions, so the mask's batch axis meets the heads. When B ≠ H it fails; when
   B = H head h of every sentence gets sentence h's mask. A head axis, (B, 1, T_q, T_k),
   broadcasts over the heads.

Shape legend: B batch, H heads, S source length, T target length, d_k per-head width.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from course_lib.runtime import run_seed
from course_lib.transformer.attention import scaled_dot_product_attention
from course_lib.transformer.bugs.bug import Bug
from course_lib.transformer.masks import padding_mask

__all__ = ["MASK_SHAPE_BUGS"]


# 7. the cross-attention mask from the target's padding, (B, S, T) ---------------------------
def _cross_mask_from_target(src: Tensor, tgt: Tensor, pad_id: int) -> Tensor:
    S, T = src.size(1), tgt.size(1)
    keep = tgt.ne(pad_id).unsqueeze(1)  # BUG: the target's pads, (B, 1, T)
    return keep.expand(-1, S, T)[:, None]  # BUG: (B, 1, S, T); scores: (B, H, T, S)


def _cross_mask_from_source(src: Tensor, tgt: Tensor, pad_id: int) -> Tensor:
    return padding_mask(src, pad_id)  # (B, 1, 1, S): the source's real tokens


def _check_cross_mask(fn: Callable) -> None:
    torch.manual_seed(run_seed(0))
    src = torch.tensor(
        [[5, 6, 7, 8], [5, 6, 0, 0]]
    )  # (B, S): sentence 2 ends in 2 pads
    tgt = torch.tensor([[2, 9, 9, 9], [2, 9, 9, 9]])  # (B, T), T = S, no padding
    q, k = (
        torch.randn(2, 2, 4, 8),
        torch.randn(2, 2, 4, 8),
    )  # (B, H, T, d_k), (B, H, S, d_k)
    _, w = scaled_dot_product_attention(q, k, k, fn(src, tgt, 0))  # (B, H, T, S)
    on_pads = w[1, :, :, 2:].sum(-1).mean().item()  # per (head, query) of sentence 2
    assert on_pads == 0, f"{on_pads:.0%} of the attention on the source's pads (S = T)"
    src = torch.tensor([[5, 6, 7, 8, 9, 9], [5, 6, 0, 0, 0, 0]])  # S = 6, T = 4
    k = torch.randn(2, 2, 6, 8)  # (B, H, S, d_k)
    _, w = scaled_dot_product_attention(q, k, k, fn(src, tgt, 0))  # (B, H, T, S)
    assert w.shape == (2, 2, 4, 6) and (w[1, :, :, 2:] == 0).all()


# 8. a (B, T_q, T_k) mask on (B, H, T_q, T_k) scores ------------------------------------------
def _softmax_mask_without_heads(scores: Tensor, mask: Tensor) -> Tensor:
    return scores.masked_fill(~mask, float("-inf")).softmax(-1)  # BUG: mask's B meets H


def _softmax_mask_with_heads(scores: Tensor, mask: Tensor) -> Tensor:
    keep = mask.unsqueeze(1)  # (B, 1, T_q, T_k): the same mask for every head
    return scores.masked_fill(~keep, float("-inf")).softmax(-1)  # (B, H, T_q, T_k)


def _check_head_axis(fn: Callable) -> None:
    torch.manual_seed(run_seed(0))
    scores = torch.randn(2, 2, 3, 3)  # (B, H, T, T) with B = H = 2
    keys = torch.tensor([[True, True, True], [True, True, False]])  # sentence 2: 1 pad
    mask = keys[:, None, :].expand(2, 3, 3)  # (B, T_q, T_k)
    w = fn(scores, mask)  # (B, H, T, T)
    wrong = [
        (b + 1, h + 1)
        for b in range(2)
        for h in range(2)  # each sentence alone, B = 1, is masked right either way
        if not torch.allclose(w[b, h], fn(scores[b : b + 1], mask[b : b + 1])[0, h])
    ]
    assert not wrong, f"(sentence, head) masked as another sentence: {wrong}"


MASK_SHAPE_BUGS = [
    Bug(
        "cross-attention mask from the target's pads",
        "runs when source and target have the same length, and the decoder attends "
        "to the source's pads; a shape error as soon as the lengths differ",
        _cross_mask_from_target,
        _cross_mask_from_source,
        _check_cross_mask,
    ),
    Bug(
        "mask without a head axis",
        "a shape error when batch size ≠ number of heads; when they are equal, head h "
        "of every sentence is masked as sentence h, silently",
        _softmax_mask_without_heads,
        _softmax_mask_with_heads,
        _check_head_axis,
    ),
]
