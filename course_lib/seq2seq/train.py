r"""The loss and the training loop of the encoder-decoder. Chapter 7.

The batches come from :func:`course_lib.seq2seq.translation.make_batches` (shared with Chapter 8).
The loss is the lecture's: the mean over target tokens of −log P(y_t | y_<t, x) under
teacher forcing, padding excluded.
Shape letters: B batch, S source length, T target length (with <bos> and <eos>), V vocabulary.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor

from course_lib.seq2seq.model import Seq2Seq
from course_lib.seq2seq.translation import Batch
from course_lib.training import History, fit

__all__ = ["seq2seq_loss", "train_seq2seq"]


def seq2seq_loss(model: Seq2Seq, batch: Batch) -> Tensor:
    """Mean −log P(y_t | y_<t, x) over the real target tokens (teacher forcing)."""
    src, src_lens, tgt = batch
    logits, _ = model(src, src_lens, tgt[:, :-1])  # (B, T-1, V)
    return F.cross_entropy(
        logits.reshape(-1, logits.size(-1)),  # (B*(T-1), V)
        tgt[:, 1:].reshape(-1),  # (B*(T-1),)
        ignore_index=model.config.pad_id,
    )


def train_seq2seq(
    model: Seq2Seq,
    batches: Callable[[], list[Batch]],
    *,
    epochs: int,
    lr: float = 2e-3,
    clip_norm: float = 1.0,
    valid: list[Batch] | None = None,
    device: torch.device | str | None = None,
    desc: str = "seq2seq",
) -> History:
    """Adam on :func:`seq2seq_loss` with gradient clipping, through ``course_lib.fit``."""
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    return fit(
        model,
        batches,
        optimizer=optimizer,
        epochs=epochs,
        loss_fn=seq2seq_loss,
        clip_norm=clip_norm,
        valid=valid,
        device=device,
        desc=desc,
    )
