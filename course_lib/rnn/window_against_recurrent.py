r"""Why a standard network does not fit sequences, measured: a window MLP against an RNN. Ch. 6.

On the long-range task of ``course_lib.rnn.long_range`` (name the symbol after a marker d
steps before the end of T tokens), a :class:`~course_lib.rnn.window_mlp.WindowMLP` of
window w reads only the last w tokens. For d > w the symbol lies outside its window and is
drawn independently of everything inside it, so no training can lift the MLP above chance,
1 / C, there; its parameters grow with w. A recurrent ``LongRangeClassifier`` reads the
whole sequence with one set of weights, whatever T. :func:`compare_windows` trains MLPs of
several windows (and, given a cell name, the recurrent network) on the same batches and
reports the accuracy of each against d and its parameter count.

Training goes through ``course_lib.training.fit``: fresh batches of the task with distances
uniform on 1..T−1, Adam, global gradient-norm clipping, the settings (and, for one seed, the
very batches) of ``train_long_range``.

Shape legend: B batch, T time (sequence length), C classes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib.rnn.long_range import (
    LongRangeClassifier,
    accuracy_by_distance,
    long_range_batch,
)
from course_lib.rnn.window_mlp import WindowMLP
from course_lib.runtime import run_seed
from course_lib.training import History, fit

__all__ = ["WindowComparison", "compare_windows", "n_params", "train_on_task"]


@dataclass
class WindowComparison:
    """What :func:`compare_windows` measured, one entry per model (``"w = 5"``, ``"LSTM"``).

    accuracy: {model: {d: accuracy}}; params: {model: parameter count}; window: {model: w}
    (the MLPs only); seconds: {model: training wall time} (the models trained here).
    """

    distances: list[int]
    accuracy: dict[str, dict[int, float]] = field(default_factory=dict)
    params: dict[str, int] = field(default_factory=dict)
    window: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def inside_and_beyond(self, name: str) -> tuple[float, float]:
        """MLP ``name``'s mean accuracy over the distances inside its window (d <= w) and
        over those beyond it (d > w)."""
        if name not in self.window:
            raise KeyError(f"{name!r} has no window; the MLPs are {list(self.window)}")
        w, acc = self.window[name], self.accuracy[name]
        inside = [a for d, a in acc.items() if d <= w]
        beyond = [a for d, a in acc.items() if d > w]
        if not inside or not beyond:
            raise ValueError(f"{name}: the distances must reach both sides of w = {w}")
        return sum(inside) / len(inside), sum(beyond) / len(beyond)


def n_params(model: nn.Module) -> int:
    """The number of trainable parameters (entries of every weight and bias)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def _task_loss(model: nn.Module, batch: tuple[Tensor, Tensor]) -> Tensor:
    tokens, labels = batch  # (B, T), (B,)
    return F.cross_entropy(model(tokens), labels)  # ()


def train_on_task(
    model: nn.Module,
    length: int,
    *,
    steps: int,
    batch: int = 64,
    lr: float = 3e-3,
    clip_norm: float | None = 1.0,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> History:
    """Train ``model`` (tokens (B, T) → logits (B, C)) on ``steps`` fresh batches of the task.

    Cross-entropy, Adam, the global gradient norm clipped at ``clip_norm``; the batches are
    drawn on the CPU from ``seed``, so every model trained with one seed sees the same ones.
    """
    gen = torch.Generator().manual_seed(run_seed(seed))
    batches = (
        long_range_batch(batch, length, n_classes=model.n_classes, generator=gen)[:2]
        for _ in range(steps)
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    return fit(
        model,
        batches,
        optimizer=optimizer,
        loss_fn=_task_loss,
        clip_norm=clip_norm,
        device=device,
        progress=False,
        desc="long-range",
    )


def compare_windows(
    length: int,
    windows: list[int] | tuple[int, ...],
    distances: list[int] | tuple[int, ...],
    *,
    recurrent: nn.Module | str = "lstm",
    n_classes: int = 8,
    embed: int = 16,
    hidden: int = 32,
    steps: int = 600,
    batch: int = 64,
    lr: float = 3e-3,
    seed: int = 0,
    n_per: int = 256,
    device: torch.device | str | None = None,
) -> WindowComparison:
    """Accuracy against the distance d of a window MLP per w, and of a recurrent network.

    Each model is built on the CPU after ``torch.manual_seed(seed)`` (the same initial
    weights on any device), moved to ``device`` and trained with :func:`train_on_task` from
    ``seed``. ``recurrent``: a cell name (``"rnn"``, ``"lstm"``, ``"gru"``) to train a
    ``LongRangeClassifier`` the same way, or a model already trained on the task at this
    length, which is only evaluated. Accuracies: ``accuracy_by_distance``, ``n_per``
    sequences per distance, the same for every model.
    """
    _check_compare(length, windows, distances, recurrent)
    sizes = dict(n_classes=n_classes, embed=embed, hidden=hidden)
    build = {f"w = {w}": (lambda w=w: WindowMLP(w, **sizes)) for w in windows}
    if isinstance(recurrent, str):
        build[recurrent.upper()] = lambda: LongRangeClassifier(recurrent, **sizes)
    result = WindowComparison(distances=[int(d) for d in distances])
    result.window = {f"w = {w}": int(w) for w in windows}
    models = {}
    for name, make in build.items():
        torch.manual_seed(run_seed(seed))
        models[name] = make().to(device)
        history = train_on_task(
            models[name],
            length,
            steps=steps,
            batch=batch,
            lr=lr,
            seed=seed,
            device=device,
        )
        result.seconds[name] = history.seconds
    if not isinstance(recurrent, str):
        models[recurrent.cell.upper()] = recurrent
    for name, model in models.items():
        result.params[name] = n_params(model)
        result.accuracy[name] = accuracy_by_distance(
            model, length, result.distances, n_per=n_per, device=device
        )
    return result


def _check_compare(length, windows, distances, recurrent) -> None:
    if not isinstance(length, int) or length < 2:
        raise ValueError(f"length must be an int >= 2; got {length!r}")
    if not windows or any(not isinstance(w, int) or w < 1 for w in windows):
        raise ValueError(f"windows must be ints >= 1; got {windows!r}")
    if not distances or any(not 1 <= int(d) <= length - 1 for d in distances):
        raise ValueError(f"distances must lie in 1..{length - 1}; got {distances!r}")
    if isinstance(recurrent, nn.Module) and not hasattr(recurrent, "cell"):
        raise ValueError("recurrent must be a cell name or a LongRangeClassifier")
