r"""Gradient descent against minibatch SGD on the word2vec objective (CS224N lecture 2). Chapter 2.

The objective is the average over the corpus of the skip-gram loss (lecture 1-2),

    J(θ) = 1/P Σ_{(c, o)} −log P(o | c),     P(o | c) = exp(u_oᵀv_c) / Σ_w exp(u_wᵀv_c),

over P (centre, outside) pairs. Gradient descent steps θ ← θ − α ∇J(θ) with the gradient of the
whole sum, so one step costs P examples; stochastic gradient descent steps with the gradient of
a minibatch of B pairs, a noisy but unbiased estimate that costs B examples. ``descent_curves``
trains the same initial model both ways for the same number of examples processed and records
the full objective J along the way, so the two can be plotted against the work done.

Shape letters: P pairs, B batch, V vocabulary, D vector width.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch
from torch import Tensor

from course_lib import step_plan
from course_lib.embeddings._common import Device, check_positive_int, describe
from course_lib.embeddings.word2vec import SkipGram
from course_lib.runtime import run_seed

__all__ = ["DescentCurve", "best_runs", "descent_curves", "full_objective"]


@dataclass
class DescentCurve:
    """One run of ``descent_curves``.

    batch_size: B (P for gradient descent); examples: the pairs processed when J was measured;
    objective: J(θ) over all P pairs at those points; step_loss: the loss of every step's own
    batch (what an SGD run sees); seconds_per_step: mean wall time of one update.
    """

    name: str
    batch_size: int
    lr: float
    examples: list[int] = field(default_factory=list)
    objective: list[float] = field(default_factory=list)
    step_loss: list[float] = field(default_factory=list)
    seconds_per_step: float = 0.0


@torch.no_grad()
def full_objective(model: SkipGram, pairs: Tensor, chunk: int = 8192) -> float:
    """J(θ): the mean of −log P(o | c) over all pairs (P, 2), computed in chunks. Chapter 2."""
    total = 0.0
    for s in range(0, len(pairs), chunk):
        part = pairs[s : s + chunk]  # (B, 2)
        total += model(part[:, 0], part[:, 1]).item() * len(part)
    return total / len(pairs)


def _check_pairs(pairs: Tensor, vocab_size: int) -> None:
    if not isinstance(pairs, Tensor) or pairs.dim() != 2 or pairs.size(1) != 2:
        raise ValueError(f"pairs must be a (P, 2) LongTensor, got {describe(pairs)}")
    if len(pairs) == 0:
        raise ValueError("pairs is empty: there is no objective to descend")
    if int(pairs.min()) < 0 or int(pairs.max()) >= vocab_size:
        raise ValueError(
            f"pair ids must be in [0, {vocab_size}), "
            f"got [{int(pairs.min())}, {int(pairs.max())}]"
        )


def descent_curves(
    pairs: Tensor,
    vocab_size: int,
    runs: Sequence[tuple[str, int | None, float]],
    *,
    dim: int = 50,
    examples: int | None = None,
    evals: int = 20,
    init_std: float = 0.1,
    seed: int = 0,
    device: Device = None,
) -> list[DescentCurve]:
    r"""Train one skip-gram model per run from the same start; J measured along the way.

    pairs: (P, 2) skip-gram (centre, outside) ids; runs: (name, batch size or None for the
    full batch P, i.e. gradient descent, learning rate α). Every run processes ``examples``
    pairs in all (default 20 P, twenty gradient-descent steps), in a seeded random order
    shared by the SGD runs, with θ ← θ − α ∇; J(θ) over all pairs is measured ``evals`` + 1
    times, evenly in examples processed. Every run starts from the same tables v_w, u_w drawn
    from N(0, ``init_std``²). Returns one ``DescentCurve`` per run.
    ``course_lib.training.fit`` is not used: a run is budgeted in examples, not epochs (a
    batch may wrap around the pairs), and each update is timed alone, without the
    evaluations of J between them that ``fit``'s wall time would include.
    A run's planned steps (a gpu check, :mod:`course_lib.step_plan`): ⌈examples / B⌉.
    """
    check_positive_int(vocab_size, "vocab_size")
    check_positive_int(evals, "evals")
    _check_pairs(pairs, vocab_size)
    if not runs:
        raise ValueError("runs is empty: give (name, batch_size or None, lr) tuples")
    dev = torch.device(device) if device is not None else pairs.device
    pairs = pairs.to(dev)  # (P, 2)
    P = len(pairs)
    budget = 20 * P if examples is None else examples
    check_positive_int(budget, "examples")
    gen = torch.Generator().manual_seed(run_seed(seed))
    start = {  # both tables N(0, init_std²): word2vec's U = 0 would stall the first steps
        name: (torch.randn(vocab_size, dim, generator=gen) * init_std).to(dev)
        for name in ("V", "U")
    }  # (V, D) each
    order = torch.randperm(P, generator=gen).to(dev)  # (P,)
    curves = []
    for name, batch_size, lr in runs:
        B = P if batch_size is None else batch_size
        check_positive_int(B, f"batch size of run {name!r}")
        model = SkipGram(vocab_size, dim, device=dev)
        model.load_state_dict(start)
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        curve = DescentCurve(name, B, lr)
        curve.examples.append(0)
        curve.objective.append(full_objective(model, pairs))
        next_eval, seen, step_time, steps = budget / evals, 0, 0.0, 0
        run = step_plan.begin("descent_curves", math.ceil(budget / B))
        while seen < budget:
            idx = order[(seen + torch.arange(B, device=dev)) % P]  # (B,)
            t0 = time.perf_counter()
            optimizer.zero_grad()
            loss = model(pairs[idx, 0], pairs[idx, 1])  # J over this batch
            loss.backward()
            optimizer.step()
            step_time += time.perf_counter() - t0
            steps += 1
            seen += B
            curve.step_loss.append(loss.item())
            if seen >= next_eval or seen >= budget:
                curve.examples.append(seen)
                curve.objective.append(full_objective(model, pairs))
                next_eval += budget / evals
            if step_plan.step(run):  # a gpu check: a few steps of the run
                break
        curve.seconds_per_step = step_time / steps
        curves.append(curve)
    return curves


def best_runs(curves: Sequence[DescentCurve]) -> list[DescentCurve]:
    """Of the runs sharing a name (a learning-rate sweep), the one with the lowest final J.

    A run whose J overflowed (inf or nan: its learning rate diverged) never wins. Names keep
    the order of their first run. Chapter 2 compares gradient descent and SGD each at its
    own best learning rate.
    """
    if not curves:
        raise ValueError("curves is empty: give the runs of descent_curves")

    def final(c: DescentCurve) -> float:
        return c.objective[-1] if math.isfinite(c.objective[-1]) else math.inf

    best: dict[str, DescentCurve] = {}
    for c in curves:
        if c.name not in best or final(c) < final(best[c.name]):
            best[c.name] = c
    diverged = [name for name, c in best.items() if final(c) == math.inf]
    if diverged:
        raise ValueError(
            f"every learning rate of {diverged} diverged: try smaller ones"
        )
    return list(best.values())
