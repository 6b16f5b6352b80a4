"""Self-attention against recurrent and convolutional layers: cost, steps, paths. Chapter 8.

CS224N lecture 8; Vaswani et al. (2017), Table 1 and section 4. For a sequence of n
vectors of width d and a convolution kernel of width k:

    layer            cost per layer   sequential operations   maximum path length
    self-attention   O(n² · d)        O(1)                    O(1)
    recurrent        O(n · d²)        O(n)                    O(n)
    convolutional    O(k · n · d²)    O(1)                    O(n / k)  (contiguous kernels)

``layer_costs`` gives these leading terms as numbers; ``ConvLayer`` is the convolution
(batch first, like the other two); ``conv_path_length`` measures, with gradients, how many
stacked convolutions it takes before the last output depends on the first input;
``seconds_per_forward`` times one forward pass; ``steps_and_reach`` counts the sequential
steps of one layer and tells whether its last output sees its first input.

Shape legend: B batch, T (= n) length, D (= d) width, k kernel width.
"""

from __future__ import annotations

import math
import time

import torch
from torch import Tensor, nn

from course_lib.runtime import run_seed

__all__ = [
    "ConvLayer",
    "conv_path_length",
    "layer_costs",
    "seconds_per_forward",
    "steps_and_reach",
]


def layer_costs(n: int, d: int, k: int = 3) -> dict[str, dict[str, float]]:
    """Vaswani et al. (2017) Table 1's leading terms for length n, width d, kernel k.

    Returns {layer: {"cost": multiply-adds per layer, "sequential": operations that must
    run one after another, "path": the longest path between two positions, in layers (a
    stack of contiguous convolutions) or steps (a recurrence)}} for "self-attention",
    "recurrent" and "convolutional". The path of a "same"-padded convolution stack is
    ⌈(n − 1) / ⌊(k − 1) / 2⌋⌉: each layer widens the view by ⌊(k − 1)/2⌋ per side.
    """
    if min(n, d) < 1 or k < 3 or k % 2 == 0:
        raise ValueError(f"need n, d >= 1 and an odd k >= 3; got n={n}, d={d}, k={k}")
    return {
        "self-attention": {"cost": n * n * d, "sequential": 1, "path": 1},
        "recurrent": {"cost": n * d * d, "sequential": n, "path": n - 1},
        "convolutional": {
            "cost": k * n * d * d,
            "sequential": 1,
            "path": math.ceil((n - 1) / ((k - 1) // 2)),
        },
    }


class ConvLayer(nn.Module):
    """A 1-D convolution over time, batch first: (B, T, D) -> (B, T, D), "same" padding.

    y_t = W · [x_{t−r}; …; x_{t+r}] + b with r = (k − 1) / 2 (zeros past either end),
    ``nn.Conv1d`` on the transposed input. Returns (y, None), as the other layers compared
    here return (output, state or weights). Chapter 8.
    """

    def __init__(
        self, d_model: int, kernel: int = 3, *, device: torch.device | str | None = None
    ) -> None:
        super().__init__()
        if kernel < 1 or kernel % 2 == 0:
            raise ValueError(f"kernel must be odd and >= 1; got {kernel}")
        self.conv = nn.Conv1d(
            d_model, d_model, kernel, padding=kernel // 2, device=device
        )

    def forward(self, x: Tensor) -> tuple[Tensor, None]:
        """x: (B, T, D) -> ((B, T, D), None)."""
        y = self.conv(x.transpose(1, 2))  # (B, D, T)
        return y.transpose(1, 2), None  # (B, T, D)


def conv_path_length(n: int, kernel: int = 3, *, d_model: int = 4) -> int:
    """Measured: the fewest stacked ``ConvLayer``s whose output at position n − 1 has a
    nonzero gradient with respect to the input at position 0 (it then "sees" it)."""
    if n < 2:
        raise ValueError(f"n must be >= 2; got {n}")
    gen = torch.Generator().manual_seed(run_seed(0))
    x = torch.randn(1, n, d_model, generator=gen, dtype=torch.float64)  # (1, T, D)
    h = x.requires_grad_()
    for depth in range(1, n + 1):
        layer = ConvLayer(d_model, kernel).double()
        h = torch.tanh(layer(h)[0])  # (1, T, D)
        (grad,) = torch.autograd.grad(h[0, -1].sum(), x, retain_graph=True)
        if grad[0, 0].abs().max() > 0:
            return depth
    raise AssertionError("unreachable: n layers always connect n positions")


def seconds_per_forward(
    module: nn.Module, x: Tensor, *, repeats: int = 3, warmup: int = 1
) -> float:
    """Median seconds of one forward pass ``module(x)`` without gradients, x (B, T, D).

    ``warmup`` passes run first, untimed; on CUDA the clock is read after a synchronise.
    (Chapter 6's ``seconds_per_pass`` times forward + backward the same way.)
    """
    if not isinstance(repeats, int) or repeats < 1 or warmup < 0:
        raise ValueError(
            f"repeats must be an int >= 1 and warmup >= 0; got {repeats}, {warmup}"
        )
    times = []
    with torch.no_grad():
        for i in range(warmup + repeats):
            if x.device.type == "cuda":
                torch.cuda.synchronize(x.device)
            start = time.perf_counter()
            module(x)
            if x.device.type == "cuda":
                torch.cuda.synchronize(x.device)
            if i >= warmup:
                times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def steps_and_reach(layer: nn.Module, inner: nn.Module, x: Tensor) -> tuple[int, bool]:
    """Run ``layer(x)`` once, x (B, T, D) with ``requires_grad``, and measure two columns
    of Table 1: how many times ``inner`` (the module the layer runs once per sequential
    step) is called, and whether the last output depends on the first input (a nonzero
    gradient: the two positions are one layer apart)."""
    calls = 0

    def count(module: nn.Module, inputs: object, output: object) -> None:
        nonlocal calls
        calls += 1

    hook = inner.register_forward_hook(count)
    try:
        out = layer(x)[0]  # (B, T, D)
    finally:
        hook.remove()
    (grad,) = torch.autograd.grad(out[:, -1].sum(), x)  # (B, T, D)
    return calls, bool(grad[:, 0].abs().max() > 0)
