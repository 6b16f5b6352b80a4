r"""A long-range dependency task: recall the symbol after a marker d steps back. Chapter 6.

CS224N lecture 6: a vanilla RNN's gradient from step t to step t − d shrinks geometrically with d,
so it cannot learn dependencies far back; gated cells (LSTM, GRU) can. The task measures that:
a sequence of T random symbols (``n_classes`` of them) holds one marker; the symbol right after
it, d steps before the end (d = 1: the last token), is the label the model must name after
reading the whole sequence. Every other token is a symbol too, so a state that merely drifts
towards "the last symbols seen" forgets the key; the model has to store it on the marker's
signal, which is what an input gate does. Chance is 1 / n_classes. Trained on distances drawn
log-uniformly from 1..T−1 (as many between 1 and 2 as between 20 and 40: near dependencies,
which any cell can learn, are common enough to be learnt), a model's accuracy against d
shows how far back it can reach (in the spirit of the copying problems of Hochreiter &
Schmidhuber, 1997).

Models use the fused ``torch.nn.RNN/LSTM/GRU`` (fast on a GPU; the from-scratch cells give the
same numbers, see ``course_lib.rnn.stacked``).

Shape legend: B batch, T time (sequence length), E embedding width, H hidden width,
C classes (keys).
"""

from __future__ import annotations

import time
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from course_lib import step_plan
from course_lib.runtime import run_seed
from course_lib.training import evaluating

__all__ = [
    "LongRangeClassifier",
    "accuracy_by_distance",
    "long_range_batch",
    "train_long_range",
]

FUSED = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}


def long_range_batch(
    batch: int,
    length: int,
    *,
    n_classes: int = 8,
    distance: int | Tensor | None = None,
    generator: torch.Generator | None = None,
    device: torch.device | str | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """A batch of the task: tokens (B, T), labels (B,) in 0..C−1 and distances (B,) in 1..T−1.

    Tokens 0..C−1 are symbols, drawn uniformly; token C is the marker. The marker sits at
    index T − d − 1, and the label is the symbol after it, at index T − d (d = 1: the last
    token). distance: one d for the whole batch, a (B,) tensor, or None: log-uniform on
    1..T−1, d = ⌊T^u⌋ with u uniform on [0, 1) (each octave of distance equally often).
    Drawn on the CPU from ``generator`` (so the data do not depend on the device), then moved.
    """
    if batch < 1 or length < 2:
        raise ValueError(f"need batch >= 1 and length >= 2; got {batch}, {length}")
    if n_classes < 2:
        raise ValueError(f"need n_classes >= 2; got {n_classes}")
    tokens = torch.randint(n_classes, (batch, length), generator=generator)  # (B, T)
    if distance is None:
        u = torch.rand(batch, generator=generator, dtype=torch.float64)  # (B,)
        d = (length**u).long().clamp(1, length - 1)  # (B,) log-uniform on 1..T−1
    else:
        d = torch.as_tensor(distance).expand(batch).clone()  # (B,)
        if d.min() < 1 or d.max() > length - 1:
            raise ValueError(
                f"distance must lie in 1..T−1 = 1..{length - 1}; got {distance}"
            )
    rows = torch.arange(batch)  # (B,)
    tokens[rows, length - d - 1] = n_classes  # (B, T)  the marker
    labels = tokens[rows, length - d].clone()  # (B,)
    return tokens.to(device), labels.to(device), d.to(device)


class LongRangeClassifier(nn.Module):
    """Embedding → fused RNN/LSTM/GRU → linear on the last hidden state: logits (B, C)."""

    def __init__(
        self,
        cell: str,
        *,
        n_classes: int = 8,
        embed: int = 16,
        hidden: int = 64,
        device: torch.device | str | None = None,
    ) -> None:
        super().__init__()
        if cell not in FUSED:
            raise ValueError(f"cell must be one of {list(FUSED)}; got {cell!r}")
        self.cell, self.n_classes = cell, n_classes
        self.embedding = nn.Embedding(n_classes + 1, embed, device=device)
        self.rnn = FUSED[cell](embed, hidden, batch_first=True, device=device)
        self.out = nn.Linear(hidden, n_classes, device=device)

    def forward(self, tokens: Tensor) -> Tensor:
        """tokens: (B, T) ids. Returns the class logits (B, C)."""
        if tokens.dim() != 2 or tokens.size(1) == 0:
            raise ValueError(
                f"tokens must be (B, T) with T >= 1; got {tuple(tokens.shape)}"
            )
        outputs, _ = self.rnn(self.embedding(tokens))  # (B, T, H)
        return self.out(outputs[:, -1])  # (B, C)


def train_long_range(
    model: LongRangeClassifier,
    length: int,
    *,
    steps: int = 1000,
    batch: int = 64,
    lr: float = 3e-3,
    optimizer: str = "adam",
    clip_norm: float | None = 1.0,
    seed: int = 0,
    max_seconds: float | None = None,
    device: torch.device | str | None = None,
) -> dict[str, Any]:
    """Train on fresh batches (distances log-uniform on 1..T−1) with ``optimizer`` ``"adam"`` or
    ``"sgd"``, clipping the global gradient norm at ``clip_norm`` (None: no clipping):
    g ← g · min(1, clip_norm / ‖g‖) (Pascanu et al., 2013).

    Stops after ``steps``, after ``max_seconds``, or at the first non-finite loss (a diverged
    run, recorded as inf). Returns ``{"loss": [...], "grad_norm": [...]}`` per step (the
    gradient norm before clipping) and ``"seconds"``, the training's wall time.
    ``course_lib.training.fit`` is not used: a diverged run is a result here (Chapter 6
    plots it as inf), where ``fit`` raises at a non-finite loss, and a run stops on a
    wall-clock budget. Its planned steps (a gpu check, :mod:`course_lib.step_plan`): ``steps``.
    """
    if optimizer not in ("adam", "sgd"):
        raise ValueError(f"optimizer must be 'adam' or 'sgd'; got {optimizer!r}")
    if clip_norm is not None and not clip_norm > 0:
        raise ValueError(f"clip_norm must be positive or None; got {clip_norm}")
    gen = torch.Generator().manual_seed(run_seed(seed))
    make = torch.optim.Adam if optimizer == "adam" else torch.optim.SGD
    opt = make(model.parameters(), lr=lr)
    history: dict[str, Any] = {"loss": [], "grad_norm": []}
    start = time.perf_counter()
    run = step_plan.begin("train_long_range", steps)  # a gpu check: a few of them
    model.train()
    for _ in range(steps):
        tokens, labels, _ = long_range_batch(
            batch,
            length,
            n_classes=model.n_classes,
            generator=gen,
            device=device,
        )
        loss = F.cross_entropy(model(tokens), labels)  # ()
        if not torch.isfinite(loss):
            history["loss"].append(float("inf"))
            history["grad_norm"].append(float("inf"))
            break
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = nn.utils.clip_grad_norm_(model.parameters(), clip_norm or float("inf"))
        opt.step()
        history["loss"].append(loss.item())
        history["grad_norm"].append(float(norm))
        if step_plan.step(run) or (
            max_seconds is not None and time.perf_counter() - start > max_seconds
        ):
            break
    history["seconds"] = time.perf_counter() - start
    return history


@torch.no_grad()
def accuracy_by_distance(
    model: LongRangeClassifier,
    length: int,
    distances: list[int],
    *,
    n_per: int = 256,
    seed: int = 1,
    device: torch.device | str | None = None,
) -> dict[int, float]:
    """Accuracy at each distance d (``n_per`` fresh sequences each, seeded). Returns {d: acc}."""
    gen = torch.Generator().manual_seed(run_seed(seed))
    out = {}
    with evaluating(model):
        for d in distances:
            tokens, labels, _ = long_range_batch(
                n_per,
                length,
                n_classes=model.n_classes,
                distance=int(d),
                generator=gen,
                device=device,
            )
            out[int(d)] = (model(tokens).argmax(1) == labels).float().mean().item()
    return out
