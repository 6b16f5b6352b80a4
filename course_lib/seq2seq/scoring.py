r"""Scoring given outputs by teacher forcing: log P(y | x) and the attention. Chapter 7.

Beam search (:mod:`course_lib.decoding`) returns hypotheses; to ask how the model scores
*another* output (a reference, in the error analysis) or where it attends while producing a
hypothesis (the attention explorer), feed the output to the decoder with teacher forcing:

    log P(y | x) = Σ_t log P(y_t | y_<t, x),     α_t = the attention weights at step t

(a sum of logs: the product of the probabilities underflows on long outputs), and how
spread out α_t is over the source, H(α_t) / log S (:func:`attention_entropy`: 0 when a
saturated softmax puts all the weight on one position).

Shape letters: B outputs, S source length, T output length (with <eos> when finished).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import torch
from torch import Tensor

from course_lib.data.batching import length_mask, pad_with_lengths
from course_lib.seq2seq.model import Seq2Seq
from course_lib.seq2seq.translation import Batch
from course_lib.training import evaluating

__all__ = [
    "attention_entropy",
    "sequence_log_prob",
    "teacher_forced",
    "token_log_probs",
]


def _targets(model: Seq2Seq, targets, finished, device) -> tuple[Tensor, Tensor]:
    """Padded y_in = <bos> y (B, T) and y_out = y <eos> (B, T), with the lengths (B,)."""
    cfg = model.config
    finished = [True] * len(targets) if finished is None else finished
    outs = [
        list(t) + ([cfg.eos_id] if f else [])
        for t, f in zip(targets, finished, strict=True)
    ]
    if any(len(o) == 0 for o in outs):
        raise ValueError("an unfinished target needs at least one token")
    y_out, lens = pad_with_lengths(outs, cfg.pad_id, device=device)  # (B, T), (B,)
    bos = torch.full((len(outs), 1), cfg.bos_id, dtype=torch.long, device=device)
    return torch.cat([bos, y_out[:, :-1]], dim=1), y_out, lens  # (B, T) each


def _forced(model: Seq2Seq, src: Tensor, src_lens: Tensor, targets, finished):
    """Teacher forcing of given outputs: log P(y_t | y_<t, x) (B, T) float64, 0 past each
    output's end, its lengths (B,) and the attention (B, T, S) (None without)."""
    if len(targets) != src.size(0):
        raise ValueError(f"need one target per source: {src.size(0)} vs {len(targets)}")
    y_in, y_out, lens = _targets(model, targets, finished, src.device)
    with evaluating(model):
        logits, weights = model(src, src_lens, y_in)  # (B, T, V), (B, T, S)
    logp = logits.log_softmax(-1).double().gather(2, y_out[:, :, None]).squeeze(2)
    real = length_mask(lens, y_out.size(1))  # (B, T)
    return logp * real, lens, weights  # (B, T), (B,), (B, T, S)


@torch.no_grad()
def teacher_forced(
    model: Seq2Seq,
    src: Tensor,
    src_lens: Tensor,
    targets: Sequence[Sequence[int]],
    *,
    finished: Sequence[bool] | None = None,
) -> tuple[Tensor, list[Tensor | None]]:
    """log P(y | x) (B,) float64 of given outputs, and each output's attention (T_b, S_b).

    targets: B token-id lists (no <bos>/<eos>); ``finished[b]`` (default True) adds <eos>,
    as a finished hypothesis has it. The attention is None for a model without attention.
    """
    logp, lens, weights = _forced(model, src, src_lens, targets, finished)
    log_prob = logp.sum(1)  # (B,)
    if weights is None:
        return log_prob, [None] * len(targets)
    maps = [
        weights[b, : int(lens[b]), : int(src_lens[b])].cpu()
        for b in range(len(targets))
    ]  # (T_b, S_b) each
    return log_prob, maps


@torch.no_grad()
def token_log_probs(
    model: Seq2Seq,
    src: Tensor,
    src_lens: Tensor,
    targets: Sequence[Sequence[int]],
    *,
    finished: Sequence[bool] | None = None,
) -> list[Tensor]:
    """log P(y_t | y_<t, x) of every token of given outputs: B tensors (T_b,) float64.

    The terms whose sum is log P(y | x) (the beam's score before normalising); <eos> is
    the last term of a finished output. targets and finished as for :func:`teacher_forced`.
    """
    logp, lens, _ = _forced(model, src, src_lens, targets, finished)
    return [logp[b, : int(lens[b])].cpu() for b in range(len(targets))]


def sequence_log_prob(
    model: Seq2Seq,
    src: Tensor,
    src_lens: Tensor,
    targets: Sequence[Sequence[int]],
    *,
    finished: Sequence[bool] | None = None,
) -> Tensor:
    """log P(y | x) of given outputs by teacher forcing: (B,) float64."""
    return teacher_forced(model, src, src_lens, targets, finished=finished)[0]


@torch.no_grad()
def attention_entropy(model: Seq2Seq, batches: Iterable[Batch]) -> float:
    r"""How spread out the attention is: the mean of H(α_t) / log S over target steps.

    H(α_t) = −Σ_i α_ti log α_ti is the entropy of step t's weights over the S source
    positions, at most log S (uniform weights); the ratio is 1 for attention spread evenly
    and 0 for attention on one position. The steps are those of the references, fed by
    teacher forcing (``batches`` as from ``make_batches``: src, src_lens, tgt); sources of
    one token, where log S = 0, are left out.
    """
    if model.scorer is None:
        raise ValueError(
            "attention_entropy needs a model with attention (attention=None)"
        )
    total, count = 0.0, 0
    with evaluating(model):
        for src, src_lens, tgt in batches:
            _, weights = model(src, src_lens, tgt[:, :-1])  # (B, T, S)
            h = -torch.special.xlogy(weights, weights).sum(-1)  # (B, T)
            steps = (tgt[:, 1:] != model.config.pad_id) & (src_lens[:, None] > 1)
            ratio = h / src_lens.clamp_min(2).to(h.dtype).log()[:, None]  # (B, T)
            total += float(ratio[steps].double().sum())
            count += int(steps.sum())
    if count == 0:
        raise ValueError(
            "attention_entropy got no target steps with a source of 2+ tokens"
        )
    return total / count
