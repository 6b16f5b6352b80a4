r"""A text-to-text task for a language model: "input -> output" lines. Chapter 9.

A decoder-only model learns a mapping x -> y as the continuation of a prompt: each pair
becomes the tokens of ``x + SEP`` followed by those of ``y`` and an end token, and the loss
counts only the output tokens,

    J(θ) = -Σ_{t ≥ |prompt|} log P_θ(w_{t+1} | w_{≤t}),

so the same loss trains full fine-tuning, prefix tuning and a head-only baseline. Exact
match decodes greedily after the prompt (:func:`course_lib.decoding.greedy_decode`), the
same decoding for every method (:func:`continuations` gives the decoded outputs).

Shape legend: B batch, T length, V vocabulary.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib.data.batching import pad
from course_lib.decoding import greedy_decode
from course_lib.pretraining.common import at_least_float32
from course_lib.pretraining.masked_lm import IGNORE
from course_lib.runtime import run_seed
from course_lib.training import evaluating, fit

__all__ = [
    "PairBatch",
    "TuneHistory",
    "continuations",
    "encode_pairs",
    "exact_match",
    "pair_loss",
    "pair_nll",
    "tune",
]

Encode = Callable[[str], list[int]]


@dataclass(frozen=True)
class PairBatch:
    """Right-padded token rows and labels that are IGNORE outside the outputs."""

    tokens: Tensor  # (B, T)
    labels: Tensor  # (B, T): labels[t] is the target of position t (next token)


def encode_pairs(
    pairs: Sequence[tuple[str, str]],
    encode: Encode,
    *,
    sep: str,
    eos_id: int,
    pad_id: int,
) -> PairBatch:
    """Tokens of ``x + sep`` + tokens of ``y`` + <eos>, padded; labels on y and <eos>."""
    if not pairs:
        raise ValueError("pairs is empty: nothing to encode")
    rows, labels = [], []
    for x, y in pairs:
        prompt, out = encode(x + sep), encode(y) + [eos_id]
        seq = prompt + out
        rows.append(seq)
        labels.append([IGNORE] * (len(prompt) - 1) + out + [IGNORE])
    return PairBatch(pad(rows, pad_id), pad(labels, IGNORE))  # (B, T) each


def pair_loss(model: nn.Module, batch: PairBatch, reduction: str = "mean") -> Tensor:
    """Cross-entropy of the output tokens, their mean (or ``reduction="sum"``):
    ``model(tokens).logits`` (B, T, V)."""
    logits = model(batch.tokens).logits  # (B, T, V)
    return F.cross_entropy(
        at_least_float32(logits.reshape(-1, logits.size(-1))),  # (B·T, V)
        batch.labels.reshape(-1),  # (B·T,)
        ignore_index=IGNORE,
        reduction=reduction,
    )


@torch.no_grad()
def pair_nll(
    model: nn.Module,
    pairs: Sequence[tuple[str, str]],
    encode: Encode,
    *,
    sep: str,
    eos_id: int,
    pad_id: int,
    batch_size: int = 64,
    device: torch.device | str | None = None,
) -> float:
    """Held-out loss: nats per output token (y and <eos>) over all ``pairs``, each token
    counted once, -Σ log P(y_t | x, y_<t) / Σ (|y| + 1), teacher-forced in eval mode."""
    if not pairs:
        raise ValueError("pairs is empty: nothing to score")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1; got {batch_size}")
    total, count = 0.0, 0
    with evaluating(model):
        for start in range(0, len(pairs), batch_size):
            batch = encode_pairs(
                pairs[start : start + batch_size],
                encode,
                sep=sep,
                eos_id=eos_id,
                pad_id=pad_id,
            )
            count += int((batch.labels != IGNORE).sum())
            batch = PairBatch(batch.tokens.to(device), batch.labels.to(device))
            total += float(pair_loss(model, batch, reduction="sum"))
    return total / count


@torch.no_grad()
def continuations(
    model: nn.Module,
    inputs: Sequence[str],
    encode: Encode,
    decode: Callable[[list[int]], str],
    *,
    sep: str,
    eos_id: int,
    max_len: int = 16,
    device: torch.device | str | None = None,
) -> list[str]:
    """The greedy continuation of ``x + sep`` for every input x, decoded, in the order of
    ``inputs`` (prompts of the same length are decoded as one batch)."""
    by_length: dict[int, list[tuple[int, list[int]]]] = {}
    for i, x in enumerate(inputs):
        ids = encode(x + sep)
        by_length.setdefault(len(ids), []).append((i, ids))
    outputs = [""] * len(inputs)
    with evaluating(model):
        for group in by_length.values():
            prompt = torch.tensor([ids for _, ids in group], device=device)  # (B, P)
            hyps = greedy_decode(model, prompt, eos=eos_id, max_len=max_len)
            for (i, _), h in zip(group, hyps, strict=True):
                outputs[i] = decode(h.tokens)
    return outputs


def exact_match(
    model: nn.Module,
    pairs: Sequence[tuple[str, str]],
    encode: Encode,
    decode: Callable[[list[int]], str],
    *,
    sep: str,
    eos_id: int,
    max_len: int = 16,
    device: torch.device | str | None = None,
) -> float:
    """Share of pairs whose greedy continuation of ``x + sep`` decodes to exactly y."""
    if not pairs:
        raise ValueError("pairs is empty: nothing to score")
    outputs = continuations(
        model,
        [x for x, _ in pairs],
        encode,
        decode,
        sep=sep,
        eos_id=eos_id,
        max_len=max_len,
        device=device,
    )
    return sum(out == y for out, (_, y) in zip(outputs, pairs, strict=True)) / len(
        pairs
    )


@dataclass
class TuneHistory:
    """Loss per step and exact match at the evaluated steps."""

    loss: list[float] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    exact_match: list[float] = field(default_factory=list)


def tune(
    model: nn.Module,
    train: Sequence[tuple[str, str]],
    *,
    encode: Encode,
    evaluate: Callable[[nn.Module], float] | None = None,
    steps: int,
    batch_size: int,
    lr: float,
    eval_every: int | None = None,
    sep: str,
    eos_id: int,
    pad_id: int,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> TuneHistory:
    """AdamW on ``model``'s trainable parameters for ``steps`` batches of ``train``
    (through :func:`~course_lib.training.fit`, gradients clipped to norm 1);
    ``evaluate(model)`` (exact match) every ``eval_every`` steps and at the end, if given."""
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise ValueError("the model has no trainable parameter")
    if (evaluate is None) != (eval_every is None):
        raise ValueError("give evaluate and eval_every together, or neither")
    if steps < 1 or (eval_every is not None and eval_every < 1):
        raise ValueError(
            f"steps and eval_every must be >= 1; got {steps}, {eval_every}"
        )
    g = torch.Generator().manual_seed(run_seed(seed))
    history = TuneHistory()
    counter = itertools.count(1)

    def batches() -> Iterator[PairBatch]:  # ``steps`` batches drawn with replacement
        for _ in range(steps):
            rows = torch.randint(0, len(train), (batch_size,), generator=g).tolist()
            batch = encode_pairs(
                [train[i] for i in rows], encode, sep=sep, eos_id=eos_id, pad_id=pad_id
            )
            yield PairBatch(batch.tokens.to(device), batch.labels.to(device))

    def after_update() -> None:
        step = next(counter)
        if evaluate is not None and (step % eval_every == 0 or step == steps):
            history.steps.append(step)
            history.exact_match.append(evaluate(model))
            model.train()

    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
    fitted = fit(
        model,
        batches,
        optimizer=opt,
        loss_fn=pair_loss,
        clip_norm=1.0,
        on_step=after_update,
        progress=False,
    )
    history.loss = fitted.step_loss
    taken = len(fitted.step_loss)  # ``steps``, unless a gpu check stopped fit early
    if evaluate is not None and taken < steps and taken not in history.steps:
        history.steps.append(taken)
        history.exact_match.append(evaluate(model))
    return history
