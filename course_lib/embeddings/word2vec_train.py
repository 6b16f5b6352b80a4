r"""Training skip-gram and CBOW with the full softmax: the loop of Chapter 1.

Skip-gram trains on (centre, outside) pairs, one softmax a pair, or on whole windows, one softmax
a centre shared by its outside words (the inner sum of lecture 1's J(θ)); CBOW on windows. The
learning rate may fall linearly to zero over the run, as in word2vec's C code and gensim.

Shape letters: P examples (pairs or windows), B batch, W window, V vocabulary, D width.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import torch
from torch import Tensor

from course_lib import step_plan
from course_lib.data.batching import batches
from course_lib.embeddings._common import Device, check_positive_int, describe
from course_lib.embeddings.word2vec import CBOW, SkipGram, hand_sgd_step
from course_lib.runtime import progress_bar, run_seed
from course_lib.training import History

__all__ = ["train_word2vec"]


def _examples(model: SkipGram | CBOW, examples, optimizer: str) -> tuple[Tensor, ...]:
    """The examples as a tuple of (P, ...) tensors, checked against the model's kind."""
    if isinstance(examples, Tensor):
        if (
            not isinstance(model, SkipGram)
            or examples.dim() != 2
            or examples.size(1) != 2
        ):
            raise ValueError(
                "a single tensor of examples must be skip-gram's (P, 2) pairs, got "
                f"{describe(examples)} for {type(model).__name__}"
            )
        return tuple(examples.unbind(dim=1))  # (P,), (P,)
    examples = tuple(examples)
    if len(examples) != 3:
        raise ValueError(
            "examples must be (P, 2) pairs or the windows (contexts, mask, centres) of "
            f"word_windows, got a sequence of {len(examples)}"
        )
    if optimizer == "hand":
        raise ValueError(
            "optimizer='hand' exists for SkipGram's pairs only (its gradients are derived)"
        )
    return examples  # (P, 2W), (P, 2W), (P,)


def _loss(model: SkipGram | CBOW, batch: tuple[Tensor, ...]) -> tuple[Tensor, Tensor]:
    """The batch's mean loss and its weight: the number of predictions it averages."""
    if len(batch) == 2:  # skip-gram pairs
        return model(*batch), torch.tensor(batch[0].size(0))
    contexts, mask, centres = batch  # (B, 2W), (B, 2W), (B,)
    if isinstance(model, SkipGram):  # each context word from the centre
        return model(centres, contexts, mask), mask.sum()
    return model(contexts, mask, centres), torch.tensor(centres.size(0))


def train_word2vec(
    model: SkipGram | CBOW,
    examples: Tensor | Sequence[Tensor],
    *,
    epochs: int = 1,
    batch_size: int = 512,
    lr: float = 0.025,
    optimizer: str = "sgd",
    decay: bool = False,
    device: Device = None,
    seed: int = 0,
    progress: bool = True,
) -> History:
    """Train a SkipGram or CBOW model; returns its ``History``. Chapter 1.

    examples: ``skipgram_pairs`` (P, 2) for SkipGram, or the windows (contexts, mask, centres) of
    ``word_windows`` for either model (skip-gram predicts each real context word from the centre,
    CBOW the centre from the context). optimizer: ``"sgd"``, ``"adam"``, or ``"hand"``
    (SkipGram's pairs only: ``hand_sgd_step``, the derived gradients without autograd). ``decay``
    lowers the learning rate linearly to 0 over the run (word2vec's schedule). The model moves to
    ``device``; batches follow it. Deterministic for a given ``seed`` (it orders the batches; seed
    the initialisation yourself). The History holds each epoch's mean loss over its predictions
    (``train_loss``) and each step's (``step_loss``), read from the device once an epoch
    (``course_lib.training.fit`` reads it every step, which waits for the device on each of
    word2vec's many small batches, and ``"hand"`` has no optimizer). Its planned steps (a gpu
    check, :mod:`course_lib.step_plan`): ``epochs`` times ⌈examples / batch_size⌉.
    """
    if optimizer not in ("sgd", "adam", "hand"):
        raise ValueError(
            f"optimizer must be 'sgd', 'adam' or 'hand', got {optimizer!r}"
        )
    if optimizer == "hand" and not isinstance(model, SkipGram):
        raise ValueError(
            "optimizer='hand' exists for SkipGram only (its gradients are derived)"
        )
    examples = _examples(model, examples, optimizer)
    check_positive_int(epochs, "epochs")
    check_positive_int(batch_size, "batch_size")
    if device is not None:
        model.to(device)
    dev = model.V.device
    n = examples[0].size(0)
    per_epoch = math.ceil(n / batch_size)
    total_steps = epochs * per_epoch
    opt = None
    if optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=lr)
    elif optimizer == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(run_seed(seed))
    history, step, start = History(), 0, time.perf_counter()
    run = step_plan.begin("train_word2vec")  # a gpu check: a few steps of them
    if run is not None:
        step_plan.plan_epochs(run, epochs, per_epoch)
    for epoch in range(epochs):
        # filled in place: a list of small loss tensors would fragment the CPU heap
        losses = torch.zeros(per_epoch, device=dev)  # (steps,) each step's mean loss
        weights = torch.zeros(per_epoch, device=dev)  # (steps,) its predictions
        done = 0
        bar = progress_bar(
            batches(examples, batch_size, generator=generator),
            total=per_epoch,
            desc=f"epoch {epoch + 1}/{epochs}",
            disable=not progress,
        )
        for batch in bar:
            batch = tuple(t.to(dev) for t in batch)  # (B, ...) each
            rate = lr * (1 - step / total_steps) if decay else lr
            if opt is None:
                loss, weight = hand_sgd_step(model, *batch, lr=rate), batch[0].size(0)
            else:
                for group in opt.param_groups:
                    group["lr"] = rate
                opt.zero_grad(set_to_none=True)
                loss, weight = _loss(model, batch)
                loss.backward()
                opt.step()
            losses[done], weights[done] = loss.detach(), weight
            step, done = step + 1, done + 1
            if progress and bar.n % 100 == 0:  # reading the loss waits for the device
                bar.set_postfix(loss=f"{losses[done - 1].item():.4f}")
            if step_plan.step(run):
                break
        step_losses, w = losses[:done], weights[:done]  # (steps,) each
        history.step_loss += step_losses.tolist()
        history.train_loss.append(((step_losses * w).sum() / w.sum()).item())
        if step_plan.stopped(run):
            break
    history.seconds = time.perf_counter() - start
    return history
