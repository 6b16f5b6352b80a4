r"""BERT's masked language model: which positions to hide, and how. Chapter 9.

Devlin et al. (2019, §3.1 and appendix A.1); CS224N lecture 9. Of the positions of a
sequence, 15 % are *selected* (special tokens such as [CLS], [SEP], [PAD] never are). Of
the selected ones,

    80 % are replaced by [MASK],   10 % by a random token,   10 % are left unchanged,

so 12 %, 1.5 % and 1.5 % of all positions. The loss is the cross-entropy of the original
token at the selected positions only; the labels elsewhere are ``IGNORE`` (-100, what
``F.cross_entropy`` skips). Random and unchanged tokens keep the model from learning that
only [MASK] positions matter, since [MASK] never appears when the model is fine-tuned.

Shape legend: B batch, T length, V vocabulary.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

import torch
from torch import Tensor

from course_lib.transformer.token_ids import check_token_ids

__all__ = ["IGNORE", "MaskedBatch", "mask_tokens", "mlm_objective"]

IGNORE = -100  # the label F.cross_entropy ignores


class MaskedBatch(NamedTuple):
    """The model's input, the labels, and what happened at each position."""

    inputs: Tensor  # (B, T) ids with [MASK] / random / unchanged at selected positions
    labels: Tensor  # (B, T) the original id where selected, IGNORE elsewhere
    selected: Tensor  # (B, T) bool
    masked: Tensor  # (B, T) bool, selected and replaced by [MASK]
    randomised: Tensor  # (B, T) bool, selected and replaced by a random token


def _check(
    tokens: Tensor,
    vocab_size: int,
    mask_id: int,
    special: Tensor,
    select_prob: float,
    mask_prob: float,
    random_prob: float,
) -> None:
    check_token_ids(tokens, vocab_size)
    if not 0 <= mask_id < vocab_size:
        raise ValueError(f"mask_id must be in 0..{vocab_size - 1}; got {mask_id}")
    if torch.isin(torch.arange(vocab_size), special).all():
        raise ValueError("every id is special: nothing can be selected or drawn")
    for share in (select_prob, mask_prob, random_prob):
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"probabilities must lie in [0, 1]; got {share}")
    if mask_prob + random_prob > 1.0:
        raise ValueError(
            f"mask_prob + random_prob must be <= 1; got {mask_prob} + {random_prob}"
        )


def mask_tokens(
    tokens: Tensor,
    *,
    vocab_size: int,
    mask_id: int,
    special_ids: Iterable[int],
    select_prob: float = 0.15,
    mask_prob: float = 0.8,
    random_prob: float = 0.1,
    generator: torch.Generator | None = None,
) -> MaskedBatch:
    """BERT's 15 % / 80-10-10 corruption of ``tokens`` (B, T); the input is not
    modified (Devlin et al., 2019, §3.1).

    Each non-special position is selected with probability ``select_prob``; a selected
    position becomes [MASK] with ``mask_prob``, a random non-special token with
    ``random_prob``, and stays as it is otherwise. Draws use ``generator`` on the CPU.
    """
    special = torch.tensor(sorted(set(special_ids)), dtype=torch.long)  # (S,)
    _check(tokens, vocab_size, mask_id, special, select_prob, mask_prob, random_prob)
    vocab = torch.arange(vocab_size)  # (V,)
    candidates = vocab[~torch.isin(vocab, special)]  # (V',) ids a random draw may pick
    ids = tokens.cpu()  # (B, T)
    u = torch.rand(ids.shape, generator=generator)  # (B, T): selection
    r = torch.rand(ids.shape, generator=generator)  # (B, T): what to do with it
    selected = ~torch.isin(ids, special) & (u < select_prob)  # (B, T)
    masked = selected & (r < mask_prob)  # (B, T)
    randomised = selected & (r >= mask_prob) & (r < mask_prob + random_prob)  # (B, T)
    draw = torch.randint(0, len(candidates), ids.shape, generator=generator)  # (B, T)
    inputs = ids.clone()  # (B, T)
    inputs[masked] = mask_id
    inputs[randomised] = candidates[draw[randomised]]
    labels = torch.where(selected, ids, torch.full_like(ids, IGNORE))  # (B, T)
    out = (inputs, labels, selected, masked, randomised)
    return MaskedBatch(*(t.to(tokens.device) for t in out))


def mlm_objective(
    *, vocab_size: int, mask_id: int, special_ids: Iterable[int]
) -> Callable[[torch.nn.Module, Tensor], Tensor]:
    """An objective for :func:`~course_lib.pretraining.distributed.pretrain`: mask each
    batch (B, T) afresh (torch's global RNG, which checkpoints save) and return the
    encoder's ``mlm_loss``. Used on one process: it calls ``mlm_loss``, not ``forward``,
    so it is not meant for a DDP-wrapped model."""
    specials = tuple(special_ids)

    def objective(model: torch.nn.Module, blocks: Tensor) -> Tensor:
        out = mask_tokens(
            blocks, vocab_size=vocab_size, mask_id=mask_id, special_ids=specials
        )
        return model.mlm_loss(out.inputs, out.labels)

    return objective
