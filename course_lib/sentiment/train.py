"""Training, predictions and accuracy for any SST-2 classifier with
``forward(tokens, lengths) -> logits (B, C)`` (including
:class:`~course_lib.pretraining.SequenceClassifier`); the negation words of SST-2."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib.sentiment.batches import LabelledBatch
from course_lib.training import evaluating, fit

# Negation words as SST-2's PTB tokenization writes them ("doesn't" -> "does n't").
NEGATIONS = frozenset({"not", "n't", "no", "never"})


def _check_pairs(pairs):
    if not pairs:
        raise ValueError("no batches given")


def has_negation(sentence: str) -> bool:
    """Whether a tokenized sentence holds one of :data:`NEGATIONS` as a word."""
    return not NEGATIONS.isdisjoint(sentence.split())


@torch.no_grad()
def predict(
    model: nn.Module,
    batches: Sequence[LabelledBatch],
    *,
    device=None,
    input_order: bool = False,
) -> tuple[Tensor, Tensor]:
    """Predicted and true labels over ``batches``: (N,) each, in batch order, or with
    ``input_order`` in the order of the pairs given to :func:`labelled_batches` (all of
    them must be batched, once each)."""
    _check_pairs(batches)
    preds, gold = [], []
    with evaluating(model):
        for b in batches:
            logits = model(b.tokens.to(device), b.lengths.to(device))  # (B, C)
            preds.append(logits.argmax(-1).cpu())
            gold.append(b.labels)
    preds, gold = torch.cat(preds), torch.cat(gold)  # (N,), (N,)
    if input_order:
        index = _input_positions(batches)  # (N,)
        preds, gold = preds[index.argsort()], gold[index.argsort()]
    return preds, gold


def _input_positions(batches: Sequence[LabelledBatch]) -> Tensor:
    """Each predicted row's position in the input pairs; they must be 0..N−1 once each."""
    if any(b.index is None for b in batches):
        raise ValueError("input_order needs batches from labelled_batches (with index)")
    index = torch.cat([b.index for b in batches])  # (N,)
    if not torch.equal(index.sort().values, torch.arange(len(index))):
        raise ValueError(
            "input_order needs every pair batched exactly once; got a subset of batches"
        )
    return index


def accuracy(
    model: nn.Module, batches: Sequence[LabelledBatch], *, device=None
) -> float:
    """Share of correctly labelled sentences."""
    p, y = predict(model, batches, device=device)
    return float((p == y).double().mean())


def train_classifier(
    model: nn.Module,
    batches: Callable[[int], Sequence[LabelledBatch]],
    *,
    epochs: int,
    lr: float,
    weight_decay: float = 0.0,
    max_steps: int | None = None,
    device: torch.device | str | None = None,
    loss_fn: Callable[[nn.Module, Tensor, Tensor, Tensor], Tensor] | None = None,
) -> list[float]:
    """AdamW on cross-entropy for ``epochs`` passes (through :func:`~course_lib.training.fit`,
    gradients clipped to norm 5); ``batches(epoch)`` gives each epoch's (shuffled) batches.
    Stops after ``max_steps`` updates when given. Returns the loss of every step.

    ``loss_fn(model, tokens, lengths, labels)`` replaces the cross-entropy of
    ``model(tokens, lengths)``'s logits, e.g. ``LabelWords.loss``, a label written as text."""
    if epochs < 1:
        raise ValueError(f"epochs must be >= 1; got {epochs}")
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
    epoch = itertools.count()

    def classification_loss(model: nn.Module, b: LabelledBatch) -> Tensor:
        tokens, lengths = b.tokens.to(device), b.lengths.to(device)
        labels = b.labels.to(device)
        if loss_fn is not None:
            return loss_fn(model, tokens, lengths, labels)
        return F.cross_entropy(model(tokens, lengths), labels)  # logits (B, C)

    history = fit(
        model,
        lambda: batches(next(epoch)),
        optimizer=opt,
        epochs=epochs,
        loss_fn=classification_loss,
        clip_norm=5.0,
        max_steps=max_steps,
        progress=False,
    )
    return history.step_loss
