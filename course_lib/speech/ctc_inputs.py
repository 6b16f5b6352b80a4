"""What the CTC loss accepts (Chapter 10): ``nn.CTCLoss``'s input domain, checked at the boundary.

Both of torch's target layouts (padded (B, S), any padding value; 1-D concatenated), input
lengths 0..T and empty labels are accepted with torch's answer; what torch would read out of
bounds (a label index outside the classes, or the blank inside a label) is a ValueError that
names it.
"""

from __future__ import annotations

import torch
from torch import Tensor

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
            raise ValueError(
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
        raise ValueError(
            "log_probs must be a (B, T, C) tensor of log-probabilities (batch first); "
            f"got {getattr(log_probs, 'shape', type(log_probs).__name__)}"
        )
    B, T, C = log_probs.shape
    if not 0 <= blank < C:
        raise ValueError(f"blank must be a class index in 0..{C - 1}; got {blank}")
    if targets.dim() != 2 or targets.size(0) != B:
        raise ValueError(
            f"targets must be (B, S) = ({B}, S) padded, or 1-D with the B labels "
            f"concatenated; got {tuple(targets.shape)}"
        )
    if input_lengths.shape != (B,) or target_lengths.shape != (B,):
        raise ValueError(
            f"input_lengths and target_lengths must be (B,) = ({B},); got "
            f"{tuple(input_lengths.shape)} and {tuple(target_lengths.shape)}"
        )
    if (input_lengths < 0).any() or (input_lengths > T).any():
        raise ValueError(f"input_lengths must lie in 0..T = 0..{T}")
    if (target_lengths < 0).any() or (target_lengths > targets.size(1)).any():
        raise ValueError(f"target_lengths must lie in 0..S = 0..{targets.size(1)}")
    valid = length_mask(target_lengths.to(targets.device), targets.size(1))  # (B, S)
    used = targets[valid]
    if ((used < 0) | (used >= C) | (used == blank)).any():
        raise ValueError(
            f"targets must be class indices in 0..{C - 1} other than the blank {blank}"
        )
