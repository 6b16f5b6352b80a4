r"""Attention as pooling: Nadaraya-Watson kernel regression on a 1-D example. Chapter 7.

Before any neural network, attention is a weighted average: a query x attends to keys x_i
and returns f(x) = Σ_i α(x, x_i) y_i with weights that sum to one (Nadaraya, 1964;
Watson, 1964; d2l 11.2).

- average pooling: α = 1/n, the same prediction ȳ for every query;
- the Gaussian kernel: α(x, x_i) = softmax_i(−½ (x − x_i)²), non-parametric;
- the parametric kernel: α(x, x_i) = softmax_i(−½ ((x − x_i) w)²), with the width w learned.

Shape letters: Q queries, K keys (training points).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from course_lib.runtime import run_seed
from course_lib.training import fit

__all__ = [
    "ParametricKernelRegression",
    "average_pooling",
    "kernel_regression_data",
    "nadaraya_watson",
    "train_kernel_width",
]


def kernel_regression_data(
    n_train: int = 50,
    n_test: int = 50,
    noise: float = 0.5,
    *,
    seed: int = 0,
    device: torch.device | str | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """y = 2 sin(x) + x^0.8 + ε on sorted uniform x in [0, 5) (d2l 11.2). Float32.

    Returns x_train (K,), y_train (K,), x_test (Q,) evenly spaced, and the noiseless
    y_test (Q,).
    """
    if n_train < 1 or n_test < 1:
        raise ValueError(f"n_train and n_test must be >= 1; got {n_train}, {n_test}")
    gen = torch.Generator().manual_seed(run_seed(seed))

    def f(x: Tensor) -> Tensor:
        return 2 * torch.sin(x) + x**0.8

    x_train = (torch.rand(n_train, generator=gen) * 5).sort().values  # (K,)
    y_train = f(x_train) + noise * torch.randn(n_train, generator=gen)  # (K,)
    x_test = torch.arange(n_test) * (5 / n_test)  # (Q,)
    out = (x_train, y_train, x_test, f(x_test))
    return tuple(t.to(device) for t in out)


def average_pooling(y_train: Tensor, n_queries: int) -> tuple[Tensor, Tensor]:
    """f(x) = (1/n) Σ_i y_i for every query; returns predictions (Q,) and weights (Q, K)."""
    if y_train.dim() != 1 or y_train.numel() == 0:
        raise ValueError(
            f"y_train must be a non-empty 1-D tensor; got {tuple(y_train.shape)}"
        )
    k = y_train.numel()
    weights = torch.full(
        (n_queries, k), 1.0 / k, dtype=y_train.dtype, device=y_train.device
    )
    return weights @ y_train, weights  # (Q,), (Q, K)


def nadaraya_watson(
    queries: Tensor, keys: Tensor, values: Tensor, width: float | Tensor = 1.0
) -> tuple[Tensor, Tensor]:
    r"""f(x) = Σ_i softmax_i(−½ ((x − x_i) w)²) y_i: predictions (Q,) and weights (Q, K).

    queries (Q,), keys (K,), values (K,); width w = 1 is the non-parametric Gaussian
    kernel, a learned w the parametric one (larger w: narrower kernel).
    """
    if queries.dim() != 1 or keys.dim() != 1 or keys.shape != values.shape:
        raise ValueError(
            "queries (Q,), keys (K,) and values (K,) must be 1-D, keys and values of one "
            f"length; got {tuple(queries.shape)}, {tuple(keys.shape)}, {tuple(values.shape)}"
        )
    diff = queries[:, None] - keys[None, :]  # (Q, K)
    weights = torch.softmax(-0.5 * (diff * width) ** 2, dim=-1)  # (Q, K)
    return weights @ values, weights  # (Q,), (Q, K)


class ParametricKernelRegression(nn.Module):
    """Nadaraya-Watson with a learned kernel width w (one parameter). Chapter 7."""

    def __init__(self, width: float = 1.0) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.tensor(float(width)))

    def forward(
        self, queries: Tensor, keys: Tensor, values: Tensor
    ) -> tuple[Tensor, Tensor]:
        """Predictions (Q,) and attention weights (Q, K), as :func:`nadaraya_watson`."""
        return nadaraya_watson(queries, keys, values, self.w)


def train_kernel_width(
    x_train: Tensor,
    y_train: Tensor,
    *,
    epochs: int = 5,
    lr: float = 0.5,
    width: float = 1.0,
) -> tuple[ParametricKernelRegression, list[float]]:
    """Learn w by SGD on the leave-one-out squared error over the training points.

    Each training point is a query whose keys are all the *other* points (with itself
    among the keys, w would grow without bound and the kernel memorise the noise).
    One full batch an epoch, through :func:`~course_lib.training.fit`.
    Returns the model and the loss of each epoch.
    """
    n = x_train.numel()
    if n < 2:
        raise ValueError(f"need at least 2 training points; got {n}")
    model = ParametricKernelRegression(width).to(x_train.device)
    others = ~torch.eye(n, dtype=torch.bool, device=x_train.device)  # (K, K)
    keys = x_train[None, :].expand(n, n)[others].view(n, n - 1)  # (K, K-1)
    vals = y_train[None, :].expand(n, n)[others].view(n, n - 1)  # (K, K-1)

    def leave_one_out(model: ParametricKernelRegression, batch) -> Tensor:
        queries, keys, vals, targets = batch
        diff = queries[:, None] - keys  # (K, K-1)
        weights = torch.softmax(-0.5 * (diff * model.w) ** 2, dim=-1)  # (K, K-1)
        pred = (weights * vals).sum(-1)  # (K,)
        return 0.5 * ((pred - targets) ** 2).mean()

    opt = torch.optim.SGD(model.parameters(), lr=lr)
    history = fit(
        model,
        [(x_train, keys, vals, y_train)],
        optimizer=opt,
        epochs=epochs,
        loss_fn=leave_one_out,
        progress=False,
    )
    return model, history.step_loss
