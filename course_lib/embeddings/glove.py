r"""GloVe: global vectors from weighted least squares on log co-occurrence counts. Chapter 2.

CS224N lecture 2; Pennington, Socher and Manning (2014), "GloVe: Global vectors for word
representation". Ratios of co-occurrence probabilities P(k | ice) / P(k | steam) tell words apart
(large for "solid", small for "gas", near 1 for "water" and "fashion"); GloVe asks the dot
product of a word vector w_i and a context vector w̃_j to fit log X_ij (eq. 8):

    J = Σ_{i,j: X_ij > 0} f(X_ij) (w_iᵀ w̃_j + b_i + b̃_j - log X_ij)²,
    f(x) = min(1, (x / x_max)^α),  α = 3/4, x_max = 100   (eq. 9)

so that rare pairs count less and very frequent ones are capped. X is symmetric, the two vector
sets are equivalent up to initialisation, and the paper uses their sum W + W̃. With
e = w_iᵀw̃_j + b_i + b̃_j - log X_ij:  ∂J/∂w_i = 2 f e w̃_j, ∂J/∂w̃_j = 2 f e w_i,
∂J/∂b_i = ∂J/∂b̃_j = 2 f e. Training is AdaGrad over the non-zero X_ij, as in the paper.

Shape letters: P non-zero entries, B batch of entries, V vocabulary, D width.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn as nn
from torch import Tensor

from course_lib import step_plan
from course_lib.embeddings._common import Device, check_positive_int, describe
from course_lib.embeddings.evaluation import _lookup
from course_lib.embeddings.word2vec import _reduce
from course_lib.runtime import progress_bar, run_seed

__all__ = [
    "GloVe",
    "GloVeRun",
    "cooccurrence_ratios",
    "glove_loss",
    "glove_loss_and_gradient",
    "glove_weight",
    "train_glove",
]

KINDS = ("sum", "mean", "main", "context")


def glove_weight(x: Tensor, x_max: float = 100.0, alpha: float = 0.75) -> Tensor:
    r"""f(x) = (x / x_max)^α if x < x_max else 1 (Pennington et al., 2014, eq. 9). Chapter 2.

    f(0) = 0, so empty cells never count. Any shape, returns the same shape.
    """
    if not x_max > 0 or not alpha > 0:
        raise ValueError(
            f"x_max and alpha must be > 0, got x_max={x_max}, alpha={alpha}"
        )
    x = torch.as_tensor(x)
    return (x / x_max).clamp(min=0).pow(alpha).clamp(max=1)  # same shape


def _check_entries(
    w_i: Tensor, w_j: Tensor, b_i: Tensor, b_j: Tensor, x: Tensor
) -> None:
    if not isinstance(w_i, Tensor) or w_i.dim() != 2 or w_j.shape != w_i.shape:
        raise ValueError(
            f"w_i and w_j must be (B, D) and alike, got {describe(w_i)} and {describe(w_j)}"
        )
    B = w_i.size(0)
    for name, t in (("b_i", b_i), ("b_j", b_j), ("x", x)):
        if not isinstance(t, Tensor) or t.shape != (B,):
            raise ValueError(f"{name} must be (B,) = ({B},), got {describe(t)}")
    if B and float(x.min()) <= 0:
        raise ValueError("x must be the non-zero counts X_ij > 0 (log X_ij is used)")


def glove_loss(
    w_i: Tensor,
    w_j: Tensor,
    b_i: Tensor,
    b_j: Tensor,
    x: Tensor,
    *,
    x_max: float = 100.0,
    alpha: float = 0.75,
    reduction: str = "mean",
) -> Tensor:
    r"""f(X_ij)(w_iᵀw̃_j + b_i + b̃_j - log X_ij)² per entry, with autograd (eq. 8). Chapter 2.

    w_i, w_j: (B, D) word and context vectors of B non-zero entries; b_i, b_j, x: (B,).
    ``reduction="sum"`` gives the paper's J over those entries.
    """
    _check_entries(w_i, w_j, b_i, b_j, x)
    e = (w_i * w_j).sum(dim=1) + b_i + b_j - x.log()  # (B,)
    return _reduce(glove_weight(x, x_max, alpha) * e**2, reduction)


def glove_loss_and_gradient(
    w_i: Tensor,
    w_j: Tensor,
    b_i: Tensor,
    b_j: Tensor,
    x: Tensor,
    *,
    x_max: float = 100.0,
    alpha: float = 0.75,
    reduction: str = "mean",
) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    r"""The GloVe loss and its hand-derived gradients, without autograd. Chapter 2.

    With e = w_iᵀw̃_j + b_i + b̃_j - log X_ij: ∂J/∂w_i = 2 f e w̃_j, ∂J/∂w̃_j = 2 f e w_i,
    ∂J/∂b_i = ∂J/∂b̃_j = 2 f e, per entry (divided by B for ``"mean"``). Returns the loss,
    grad_w_i (B, D), grad_w_j (B, D), grad_b_i (B,), grad_b_j (B,).
    """
    _check_entries(w_i, w_j, b_i, b_j, x)
    with torch.no_grad():
        f = glove_weight(x, x_max, alpha)  # (B,)
        e = (w_i * w_j).sum(dim=1) + b_i + b_j - x.log()  # (B,)
        g = 2 * f * e  # (B,)  ∂J/∂e
        if reduction == "mean":
            g = g / max(x.numel(), 1)  # (B,)
        return _reduce(f * e**2, reduction), g[:, None] * w_j, g[:, None] * w_i, g, g


class GloVe(nn.Module):
    r"""GloVe's parameters: word and context vectors W, W̃ (V, D), biases b, b̃ (V,). Chapter 2.

    Initialised as the reference code does: every entry uniform in ±0.5/D. ``forward(i, j, x)``
    is the mean loss over a batch of non-zero entries X[i, j] = x.
    """

    def __init__(
        self,
        vocab_size: int,
        dim: int,
        *,
        device: Device = None,
        dtype: torch.dtype | None = None,
        generator: torch.Generator | None = None,
    ) -> None:
        super().__init__()
        check_positive_int(vocab_size, "vocab_size")
        check_positive_int(dim, "dim")
        self.vocab_size, self.dim = vocab_size, dim

        def init(*shape: int) -> nn.Parameter:
            t = torch.empty(*shape, device=device, dtype=dtype)
            return nn.Parameter(t.uniform_(-0.5 / dim, 0.5 / dim, generator=generator))

        self.W = init(vocab_size, dim)  # (V, D)
        self.W_tilde = init(vocab_size, dim)  # (V, D)
        self.b, self.b_tilde = init(vocab_size), init(vocab_size)  # (V,) each

    def forward(self, i: Tensor, j: Tensor, x: Tensor) -> Tensor:
        """Mean of f(X_ij)(w_iᵀw̃_j + b_i + b̃_j - log X_ij)²: i, j, x (B,) -> scalar."""
        return glove_loss(self.W[i], self.W_tilde[j], self.b[i], self.b_tilde[j], x)

    def vectors(self, kind: str = "sum") -> Tensor:
        """Word vectors (V, D): W + W̃ (the paper's choice), their mean, W or W̃ alone."""
        if kind == "sum":
            return (self.W + self.W_tilde).detach()  # (V, D)
        if kind == "mean":
            return ((self.W + self.W_tilde) / 2).detach()  # (V, D)
        if kind == "main":
            return self.W.detach().clone()  # (V, D)
        if kind == "context":
            return self.W_tilde.detach().clone()  # (V, D)
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")


@dataclass
class GloVeRun:
    """What ``train_glove`` returns: the model, the weighted loss J / P per epoch, timings."""

    model: GloVe
    loss: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    entries: int = 0


def _entries(X: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    if not isinstance(X, Tensor) or X.dim() != 2 or X.size(0) != X.size(1):
        raise ValueError(
            f"X must be a square (V, V) co-occurrence matrix, got {describe(X)}"
        )
    if X.is_sparse:
        X = X.coalesce()
        (i, j), x = X.indices(), X.values()  # (P,) each
    else:
        i, j = X.nonzero(as_tuple=True)  # (P,) each
        x = X[i, j]  # (P,)
    keep = x > 0  # (P,)
    if not bool(keep.any()):
        raise ValueError("X has no positive entry: nothing to fit")
    return i[keep], j[keep], x[keep].float()  # (P,) each


def _adagrad_rows(
    p: Tensor, acc: Tensor, rows: Tensor, inverse: Tensor, g: Tensor, lr: float
) -> None:
    """AdaGrad on the rows of one batch: each row's gradients summed, acc += g², p -= lr g/√acc.

    rows: (R,) the distinct rows; inverse: (B,) the row of each entry; g: (B, ...).
    """
    g_row = torch.zeros((rows.numel(), *g.shape[1:]), dtype=g.dtype, device=g.device)
    g_row.index_add_(0, inverse, g)  # (R, ...)  a row's gradients, summed
    acc_row = acc.index_select(0, rows).addcmul_(g_row, g_row)  # (R, ...)
    acc.index_copy_(0, rows, acc_row)
    p.index_add_(0, rows, g_row / acc_row.sqrt(), alpha=-lr)  # each step at most lr


def train_glove(
    X: Tensor,
    dim: int = 50,
    *,
    epochs: int = 15,
    lr: float = 0.5,
    batch_size: int = 16384,
    x_max: float = 100.0,
    alpha: float = 0.75,
    seed: int = 0,
    device: Device = None,
    progress: bool = True,
) -> GloVeRun:
    r"""Fit GloVe to the non-zero entries of X with AdaGrad, batched, no autograd. Chapter 2.

    X: (V, V) co-occurrence counts, dense or sparse (``cooccurrence_matrix(..., weighting=
    "harmonic", sparse=True)``, the paper's 1/d weighting). Each epoch visits every non-zero
    entry once in a seeded random order, B at a time. AdaGrad (Duchi et al., 2011), as the
    paper: each parameter keeps a sum of squared gradients, starting at 1 as in glove.c, and
    steps by lr · g / √(sum), g the gradient of ½ J (glove.c's scaling; same minimum). glove.c
    steps after every entry with lr = 0.05; here g sums a row's gradients over the batch,
    one step per row and batch, so a larger lr (0.5) makes up for the fewer steps.
    Returns a ``GloVeRun``. Its planned steps (a gpu check, :mod:`course_lib.step_plan`):
    ``epochs`` times ⌈entries / batch_size⌉.
    """
    check_positive_int(dim, "dim")
    check_positive_int(epochs, "epochs")
    check_positive_int(batch_size, "batch_size")
    dev = torch.device(device) if device is not None else X.device
    i_all, j_all, x_all = (t.to(dev) for t in _entries(X))  # (P,) each
    gen = torch.Generator(device=dev).manual_seed(run_seed(seed))
    model = GloVe(X.size(0), dim, device=dev, generator=gen).requires_grad_(False)
    sq = [  # AdaGrad sums, start at 1 as in glove.c
        torch.ones_like(p) for p in (model.W, model.W_tilde, model.b, model.b_tilde)
    ]
    run = GloVeRun(model=model, entries=x_all.numel())
    threads_before = torch.get_num_threads()
    if dev.type == "cpu":  # gathers and scatters of rows: one thread is fastest, and
        torch.set_num_threads(1)  # several slow down badly when the cores are shared
    try:
        _glove_epochs(
            run,
            sq,
            (i_all, j_all, x_all),
            epochs,
            batch_size,
            lr,
            x_max,
            alpha,
            gen,
            progress,
        )
    finally:
        torch.set_num_threads(threads_before)
    return run


def _glove_epochs(
    run, sq, entries, epochs, batch_size, lr, x_max, alpha, gen, progress
) -> None:
    """The epochs of ``train_glove``: AdaGrad steps over shuffled batches of entries."""
    model = run.model
    i_all, j_all, x_all = entries  # (P,) each
    dev = x_all.device
    P = x_all.numel()
    plan = step_plan.begin("train_glove", epochs * math.ceil(P / batch_size))
    for epoch in range(epochs):
        total = torch.zeros((), device=dev)
        t0 = time.perf_counter()
        order = torch.randperm(P, generator=gen, device=dev)  # (P,)
        bar = progress_bar(
            range(0, P, batch_size),
            desc=f"GloVe epoch {epoch + 1}/{epochs}",
            disable=not progress,
        )
        for s in bar:
            idx = order[s : s + batch_size]  # (B,)
            i, j, x = i_all[idx], j_all[idx], x_all[idx]  # (B,) each
            rows_i, inv_i = torch.unique(i, return_inverse=True)  # (R_i,), (B,)
            rows_j, inv_j = torch.unique(j, return_inverse=True)  # (R_j,), (B,)
            loss, g_wi, g_wj, g_bi, g_bj = glove_loss_and_gradient(
                model.W.index_select(0, i),
                model.W_tilde.index_select(0, j),
                model.b.index_select(0, i),
                model.b_tilde.index_select(0, j),
                x,
                x_max=x_max,
                alpha=alpha,
                reduction="sum",
            )
            total += loss
            # g / 2: the gradient of ½ J, as glove.c
            _adagrad_rows(model.W, sq[0], rows_i, inv_i, g_wi / 2, lr)
            _adagrad_rows(model.W_tilde, sq[1], rows_j, inv_j, g_wj / 2, lr)
            _adagrad_rows(model.b, sq[2], rows_i, inv_i, g_bi / 2, lr)
            _adagrad_rows(model.b_tilde, sq[3], rows_j, inv_j, g_bj / 2, lr)
            if step_plan.step(plan):  # a gpu check: a few steps of them
                break
        run.loss.append(total.item() / P)
        run.seconds.append(time.perf_counter() - t0)
        if step_plan.stopped(plan):
            break


def cooccurrence_ratios(
    X: Tensor,
    vocab: Any,
    probes: tuple[str, str] = ("ice", "steam"),
    contexts: tuple[str, ...] = ("solid", "gas", "water", "fashion"),
) -> dict[str, list]:
    r"""The lecture's table: P(k | a), P(k | b) and P(k | a) / P(k | b) from real counts. Chapter 2.

    P(k | w) = X[w, k] / Σ_j X[w, j] (Pennington et al., 2014, table 1). X: (V, V) dense or
    sparse counts; ``vocab`` maps words to rows (a ``Vocab`` or a dict). Any probe or context
    missing from the vocabulary raises ``OutOfVocabularyError`` naming all of them. A ratio is
    inf when P(k | b) = 0 (nan when both are 0). Returns columns (ready for a DataFrame):
    {"context": [k...], "P(k|a)": [...], "P(k|b)": [...], "P(k|a)/P(k|b)": [...]}.
    """
    if len(probes) != 2:
        raise ValueError(f"probes must be two words (a, b), got {probes!r}")
    if not isinstance(X, Tensor) or X.dim() != 2:
        raise ValueError(f"X must be a (V, V) matrix, got {describe(X)}")
    words = list(probes) + [k for k in contexts if k not in probes]
    _lookup(vocab, list(dict.fromkeys(words)), X.size(0))  # raises OutOfVocabularyError
    rows = torch.tensor([int(vocab[p]) for p in probes], device=X.device)  # (2,)
    cols = torch.tensor([int(vocab[k]) for k in contexts], device=X.device)  # (C,)
    picked = X.index_select(0, rows)  # (2, V)
    picked = picked.to_dense() if picked.is_sparse else picked  # (2, V)
    picked = picked.double()  # (2, V)
    totals = picked.sum(dim=1, keepdim=True)  # (2, 1)
    if bool((totals == 0).any()):
        empty = [p for p, t in zip(probes, totals[:, 0].tolist()) if t == 0]
        raise ValueError(f"no co-occurrence counts for {empty}: P(k | w) is undefined")
    probs = picked[:, cols] / totals  # (2, C)
    a, b = probes
    ratio = [
        (p / q if q > 0 else (math.inf if p > 0 else math.nan))
        for p, q in zip(probs[0].tolist(), probs[1].tolist())
    ]
    return {
        "context": list(contexts),
        f"P(k|{a})": probs[0].tolist(),
        f"P(k|{b})": probs[1].tolist(),
        f"P(k|{a})/P(k|{b})": ratio,
    }
