"""What the CTC loss accepts (Chapter 10): ``nn.CTCLoss``'s input domain, checked at the boundary.

Both of torch's target layouts (padded (B, S), any padding value; 1-D concatenated), input
lengths 0..T and empty labels are accepted with torch's answer; what torch would read out of
bounds (a label index outside the classes, or the blank inside a label) is an
:class:`~course_lib.checks.InputError` that names it. Where torch returns a wrong number
without a word, so do we not: raw logits or probabilities instead of log-probabilities (a
negative "loss"), NaN in the used frames, time-first (T, B, C) input as ``nn.CTCLoss`` takes
it, and the mean over an empty batch each raise an error that says what to do.
"""

from __future__ import annotations

import torch
from torch import Tensor

from course_lib.checks import InputError, check_log_probs
from course_lib.data.batching import length_mask


def _padded_targets(targets: Tensor, target_lengths: Tensor, blank: int) -> Tensor:
    """Targets as (B, S) with the blank in every padding position.

    ``nn.CTCLoss`` takes either layout and ignores the padding, whatever its value: 1-D
    targets (the B labels concatenated, sum(target_lengths) of them) are padded here, and a
    padded batch's padding is overwritten, so it never reaches an index.
    """
    if target_lengths.dim() != 1 or (target_lengths < 0).any():
        return targets  # _check_ctc says what is wrong
    if targets.dim() == 1:
        if targets.numel() != int(target_lengths.sum()):
            raise InputError(
                f"1-D targets hold the labels concatenated: sum(target_lengths) = "
                f"{int(target_lengths.sum())} of them; got {targets.numel()}"
            )
        rows = [*targets.split(target_lengths.tolist()), targets[:0]]  # + one empty
        targets = torch.nn.utils.rnn.pad_sequence(
            rows, batch_first=True, padding_value=blank
        )[:-1]  # (B, max S)
    if targets.dim() == 2 and targets.size(0) == target_lengths.size(0):
        real = length_mask(target_lengths.to(targets.device), targets.size(1))
        targets = targets.masked_fill(~real, blank)  # (B, S), padding → blank
    return targets


def _check_ctc(log_probs, targets, input_lengths, target_lengths, blank) -> None:
    if not isinstance(log_probs, Tensor) or log_probs.dim() != 3:
        raise InputError(
            "log_probs must be a (B, T, C) tensor of log-probabilities (batch first); "
            f"got {getattr(log_probs, 'shape', type(log_probs).__name__)}"
        )
    B, T, C = log_probs.shape
    _check_batch_first(log_probs, input_lengths)
    if not 0 <= blank < C:
        raise InputError(f"blank must be a class index in 0..{C - 1}; got {blank}")
    if targets.dim() != 2 or targets.size(0) != B:
        raise InputError(
            f"targets must be (B, S) = ({B}, S) padded, or 1-D with the B labels "
            f"concatenated; got {tuple(targets.shape)}"
        )
    if input_lengths.shape != (B,) or target_lengths.shape != (B,):
        raise InputError(
            f"input_lengths and target_lengths must be (B,) = ({B},); got "
            f"{tuple(input_lengths.shape)} and {tuple(target_lengths.shape)}"
        )
    if (input_lengths < 0).any() or (input_lengths > T).any():
        raise InputError(f"input_lengths must lie in 0..T = 0..{T}")
    if (target_lengths < 0).any() or (target_lengths > targets.size(1)).any():
        raise InputError(f"target_lengths must lie in 0..S = 0..{targets.size(1)}")
    valid = length_mask(target_lengths.to(targets.device), targets.size(1))  # (B, S)
    used = targets[valid]
    if ((used < 0) | (used >= C) | (used == blank)).any():
        raise InputError(
            f"targets must be class indices in 0..{C - 1} other than the blank {blank}"
        )
    frames = length_mask(input_lengths.to(log_probs.device), T)  # (B, T) used frames
    check_log_probs(log_probs, "log_probs", valid=frames)


def _check_batch_first(log_probs: Tensor, input_lengths: Tensor) -> None:
    """Time-first (T, B, C) log_probs, as ``nn.CTCLoss`` takes them, named as such."""
    n = input_lengths.numel() if input_lengths.dim() == 1 else None
    if n is not None and log_probs.size(0) != n and log_probs.size(1) == n:
        raise InputError(
            f"log_probs looks time-first, {tuple(log_probs.shape)} = (T, B, C) as "
            f"nn.CTCLoss takes it, for the {n} input_lengths; ctc_loss is batch first, "
            "(B, T, C): pass log_probs.transpose(0, 1)"
        )


def check_reduction(reduction: str, batch: int) -> None:
    """One of ``"none"``, ``"sum"``, ``"mean"``; the mean needs a non-empty batch."""
    if reduction not in ("none", "sum", "mean"):
        raise InputError(
            f"reduction must be 'none', 'sum' or 'mean'; got {reduction!r}"
        )
    if reduction == "mean" and batch == 0:
        raise InputError(
            "ctc_loss got an empty batch (B = 0): the mean over no sequences is "
            "undefined (NaN); skip the empty batch, or use reduction='sum'"
        )
