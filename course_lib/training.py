"""One small training loop for every chapter: ``fit()``. No framework, nothing hidden.

Each step is the loop of the lectures: forward, loss, backward, (clip), update. The loop moves every
tensor of a batch to ``device``, shows a ``tqdm`` progress bar, and returns a
:class:`History` that a chapter plots with ``course_lib.viz.training_curves``.
:func:`lr_scheduler` picks one of torch's learning-rate schedulers by name, and
:func:`weight_average` a torch ``AveragedModel`` to evaluate with
(``fit(..., on_step=lambda: average.update_parameters(model))``).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, LRScheduler
from torch.optim.swa_utils import AveragedModel

from course_lib import step_plan
from course_lib.checks import check_scalar_loss
from course_lib.runtime import progress_bar

Batch = Any
LossFn = Callable[[nn.Module, Batch], Tensor]


@dataclass
class History:
    """What ``fit`` measured: mean loss per epoch, loss and gradient norm per step, wall time."""

    train_loss: list[float] = field(default_factory=list)
    valid_loss: list[float] = field(default_factory=list)
    step_loss: list[float] = field(default_factory=list)
    grad_norm: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def running_loss(self, width: int) -> tuple[np.ndarray, np.ndarray]:
        """The mean of each ``width`` consecutive step losses, and the step (from 1) that ends
        each window: the curve to plot beside the noisy step losses (1 <= width <= steps)."""
        n = len(self.step_loss)
        if isinstance(width, bool) or not isinstance(width, int) or not 1 <= width <= n:
            raise ValueError(
                f"width must be an int in 1..{n} (the steps run); got {width!r}"
            )
        means = np.convolve(self.step_loss, np.ones(width) / width, mode="valid")
        return np.arange(width, n + 1), means  # (n - width + 1,) each

    def as_dict(self) -> dict[str, list[float]]:
        """The per-epoch curves, ready for ``viz.training_curves``."""
        curves = {"train": self.train_loss}
        if self.valid_loss:
            curves["valid"] = self.valid_loss
        return curves


def to_device(batch: Batch, device: torch.device | str | None) -> Batch:
    """Move every tensor inside a (nested) tuple, list or dict to ``device``."""
    if device is None:
        return batch
    if isinstance(batch, Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(b, device) for b in batch)
    if isinstance(batch, dict):
        return {k: to_device(v, device) for k, v in batch.items()}
    return batch


def default_loss(model: nn.Module, batch: Batch) -> Tensor:
    """The model computes its own loss: ``model(*batch)`` (or ``model(**batch)``)."""
    if isinstance(batch, dict):
        return model(**batch)
    if isinstance(batch, (list, tuple)):
        return model(*batch)
    return model(batch)


def _epoch_batches(
    batches: Iterable[Batch] | Callable[[], Iterable[Batch]],
) -> Iterator[Batch]:
    return iter(batches() if callable(batches) else batches)


@contextlib.contextmanager
def evaluating(model: nn.Module) -> Iterator[nn.Module]:
    """Switch ``model`` (and every submodule) to eval mode, then restore each module's mode.

    ``with evaluating(model): ...`` replaces ``was = model.training; model.eval(); ...;
    model.train(was)``, and restores the previous modes even when the body raises.
    Gradients stay as they are: add ``torch.no_grad()`` where none are needed.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"evaluating() needs an nn.Module, got {type(model).__name__}")
    modes = [(m, m.training) for m in model.modules()]
    model.eval()
    try:
        yield model
    finally:
        for module, mode in modes:
            module.training = mode


def evaluate(
    model: nn.Module,
    batches: Iterable[Batch] | Callable[[], Iterable[Batch]],
    *,
    loss_fn: LossFn = default_loss,
    device: torch.device | str | None = None,
) -> float:
    """Mean loss over ``batches`` with gradients off and the model in eval mode."""
    total, count = 0.0, 0
    with evaluating(model), torch.no_grad():
        for batch in _epoch_batches(batches):
            total += float(loss_fn(model, to_device(batch, device)))
            count += 1
    if count == 0:
        raise ValueError("evaluate() got no batches: the validation data is empty")
    return total / count


def _reached(history: History, max_steps: int | None) -> bool:
    return max_steps is not None and len(history.step_loss) >= max_steps


def fit(
    model: nn.Module,
    batches: Iterable[Batch] | Callable[[], Iterable[Batch]],
    *,
    optimizer: torch.optim.Optimizer,
    epochs: int = 1,
    loss_fn: LossFn = default_loss,
    clip_norm: float | None = None,
    valid: Iterable[Batch] | Callable[[], Iterable[Batch]] | None = None,
    device: torch.device | str | None = None,
    scheduler: Any | None = None,
    on_step: Callable[[], None] | None = None,
    max_steps: int | None = None,
    progress: bool = True,
    desc: str = "train",
) -> History:
    """Train ``model`` for ``epochs`` passes over ``batches``; return the :class:`History`.

    Each step: ``loss = loss_fn(model, batch)``; ``loss.backward()``; optional clipping of the
    global gradient norm to ``clip_norm`` (Pascanu et al., 2013); ``optimizer.step()``.

    Args:
        batches: a re-iterable (list, DataLoader) or a function returning a fresh iterable each
            epoch (use the function form for shuffling generators). A one-shot iterator is rejected
            after the first epoch, since the second would silently see no data.
        loss_fn: ``(model, batch) -> scalar loss``; by default the model returns its own loss.
        valid: batches for a validation loss after every epoch.
        scheduler: stepped after every update (a learning-rate schedule).
        on_step: called after every update, e.g. ``lambda: average.update_parameters(model)``.
        max_steps: stop after this many updates in all; the epoch under way ends there (its
            mean loss and validation cover the steps it took).

    Its planned steps (a gpu check, :mod:`course_lib.step_plan`): ``epochs`` times the first
    epoch's batches, at most ``max_steps``.
    """
    if epochs < 1:
        raise ValueError(f"epochs must be >= 1, got {epochs}")
    if clip_norm is not None and clip_norm <= 0:
        raise ValueError(f"clip_norm must be positive or None, got {clip_norm}")
    if max_steps is not None and (isinstance(max_steps, bool) or max_steps < 1):
        raise ValueError(
            f"max_steps must be a positive integer or None, got {max_steps}"
        )
    history = History()
    start = time.perf_counter()
    run = step_plan.begin("fit")  # None outside a gpu check
    model.train()
    for epoch in range(epochs):
        total, count = 0.0, 0
        epoch_batches = _epoch_batches(batches)
        bar = progress_bar(
            # in a gpu check, kept open when the loop stops early (tqdm would close it)
            epoch_batches if run is None else (b for b in epoch_batches),
            desc=f"{desc} {epoch + 1}/{epochs}",
            disable=not progress,
            leave=False,
        )
        for batch in bar:
            loss = check_scalar_loss(loss_fn(model, to_device(batch, device)))
            if not torch.isfinite(loss):
                raise FloatingPointError(
                    f"loss became {loss.item()} at epoch {epoch + 1}, step {count + 1}: "
                    "lower the learning rate or set clip_norm"
                )
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            params = [
                p
                for g in optimizer.param_groups
                for p in g["params"]
                if p.grad is not None
            ]
            norm = nn.utils.clip_grad_norm_(
                params, clip_norm if clip_norm else math.inf
            )
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            if on_step is not None:
                on_step()
            value = loss.item()
            history.step_loss.append(value)
            history.grad_norm.append(float(norm))
            total += value
            count += 1
            bar.set_postfix(loss=f"{value:.3f}")
            # a gpu check stops after its few steps; max_steps stops any run
            if step_plan.step(run) or _reached(history, max_steps):
                break
        if count == 0:
            raise ValueError(
                f"epoch {epoch + 1} saw no batches: pass a list, a DataLoader or a function "
                "returning a fresh iterable, not a one-shot iterator"
            )
        if run is not None and epoch == 0:
            per_epoch = step_plan.count_rest(count, epoch_batches)
            step_plan.plan_epochs(run, epochs, per_epoch, max_steps, done=0)
        history.train_loss.append(total / count)
        if valid is not None:
            history.valid_loss.append(
                evaluate(model, valid, loss_fn=loss_fn, device=device)
            )
        if step_plan.stopped(run) or _reached(history, max_steps):
            break
    history.seconds = time.perf_counter() - start
    return history


SCHEDULES = ("constant", "linear", "cosine")


def lr_scheduler(
    optimizer: torch.optim.Optimizer, schedule: str, total_steps: int
) -> LRScheduler | None:
    r"""torch's scheduler for a learning rate decayed to 0 over ``total_steps`` updates.

    "constant": None (no scheduler); "linear": η_s = η(1 − s/S) (``LinearLR``); "cosine":
    η_s = ½η(1 + cos(πs/S)) (``CosineAnnealingLR``; Loshchilov & Hutter, 2017, eq. 5 with
    η_min = 0 and no restart). Step it after every update (``fit(scheduler=...)``).
    """
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")
    if total_steps < 1:
        raise ValueError(f"total_steps must be >= 1, got {total_steps}")
    if schedule == "linear":
        return LinearLR(optimizer, 1.0, 0.0, total_iters=total_steps)
    if schedule == "cosine":
        return CosineAnnealingLR(optimizer, T_max=total_steps)
    return None


def weight_average(model: nn.Module, decay: float = 0.999) -> AveragedModel:
    r"""An exponential moving average of ``model``'s weights, to evaluate with.

    After every update t = 1, 2, ... (``average.update_parameters(model)``):
    θ̄ ← β_t θ̄ + (1 − β_t) θ, with β_t = min(β, (1 + t)/(10 + t)) so that the first updates
    are not averaged with the random start (TensorFlow's ``ExponentialMovingAverage`` with
    ``num_updates``). Averaging the iterates (Polyak & Juditsky, 1992) smooths the noise of
    the last steps; Weiss et al. (2015) and Andor et al. (2016) evaluate their transition
    parsers with averaged weights. θ̄ starts as θ; ``average.module`` is the averaged model.
    """
    if not 0.0 <= decay < 1.0:
        raise ValueError(f"decay must be in [0, 1), got {decay}")

    def ema(avg: Tensor, param: Tensor, t: Tensor) -> Tensor:
        beta = min(decay, (1 + int(t)) / (10 + int(t)))
        return torch.lerp(avg, param, 1.0 - beta)

    average = AveragedModel(model, avg_fn=ema)
    average.update_parameters(
        model
    )  # the first call copies θ: θ̄ starts as θ, t = 1 next
    return average
