r"""Measuring gradient flow: per-layer / per-step gradient statistics, and the deep-MLP
experiment. Chapters 3, 6.

Back-propagation multiplies the upstream gradient by one local Jacobian per layer (CS224N
lecture 3), so its size can shrink or grow geometrically with depth: vanishing and exploding
gradients (lecture 6 for RNNs, where "layers" are time steps). ``gradient_stats`` summarises
named gradients (``"layer 3"``, ``"t = 17"``) by the norm ‖g‖₂ and quantiles of their entries
|g|; ``mlp_gradient_flow`` is the experiment of Chapter 3, the gradients of a deep MLP with a
given depth, activation, initialisation scale, residual connections and LayerNorm. The widget
that plots them is ``course_lib.widgets.gradient_flow``; this module imports no widgets.

Shape legend: B batch, D width (units per layer), C classes, L depth.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from course_lib.runtime import one_thread, run_seed

__all__ = [
    "MLP_ACTIVATIONS",
    "QUANTILES",
    "GradientStats",
    "gradient_stats",
    "mlp_gradient_flow",
]

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
MLP_ACTIVATIONS = ("sigmoid", "tanh", "relu")


@dataclass(frozen=True)
class GradientStats:
    """Per name: the norm ‖g‖₂ and quantiles of |g| at ``levels`` (entries of the gradient)."""

    names: tuple[str, ...]
    norms: tuple[float, ...]
    quantiles: tuple[tuple[float, ...], ...]  # one tuple per name, one value per level
    levels: tuple[float, ...] = QUANTILES


def gradient_stats(
    named_grads: Mapping[str, Tensor] | Sequence[tuple[str, Tensor]],
    levels: Sequence[float] = QUANTILES,
) -> GradientStats:
    """‖g‖₂ and the ``levels`` quantiles of |g| for each named gradient, in the given order.

    named_grads: ``{name: gradient}`` or ``[(name, gradient), ...]``; any shapes, any devices.
    Quantiles interpolate linearly between order statistics (``numpy.quantile``'s default).
    """
    items = list(
        named_grads.items() if isinstance(named_grads, Mapping) else named_grads
    )
    if not items:
        raise ValueError("named_grads is empty; pass at least one (name, gradient)")
    levels = tuple(float(q) for q in levels)
    if (
        not levels
        or any(not 0 <= q <= 1 for q in levels)
        or list(levels) != sorted(levels)
    ):
        raise ValueError(
            f"levels must be increasing quantile levels in [0, 1]; got {levels}"
        )
    names, norms, quantiles = [], [], []
    for name, g in items:
        if g is None:
            raise ValueError(f"gradient {name!r} is None: no gradient reached it")
        a = np.abs(np.asarray(g.detach().cpu().double() if hasattr(g, "detach") else g))
        if a.size == 0 or not np.issubdtype(a.dtype, np.number):
            raise ValueError(f"gradient {name!r} must be a non-empty numeric tensor")
        names.append(str(name))
        norms.append(float(np.sqrt(np.sum(a.astype(np.float64) ** 2))))
        quantiles.append(tuple(float(v) for v in np.quantile(a.ravel(), levels)))
    if len(set(names)) != len(names):
        raise ValueError(f"names must be unique; got {names}")
    return GradientStats(tuple(names), tuple(norms), tuple(quantiles), levels)


def mlp_gradient_flow(
    depth: int,
    activation: str = "tanh",
    init_scale: float = 1.0,
    residual: bool = False,
    layernorm: bool = False,
    *,
    width: int = 64,
    batch: int = 64,
    n_classes: int = 10,
    seed: int = 0,
    wrt: str = "activation",
    dtype: torch.dtype = torch.float64,
    device: torch.device | str | None = None,
) -> dict[str, Tensor]:
    r"""The gradients of a deep MLP's loss, layer by layer (input side first). Chapter 3.

    Layer l: u = LN(h_{l−1}) (with ``layernorm``) or h_{l−1}; a = f(W_l u + b_l);
    h_l = h_{l−1} + a (with ``residual``) or a. Then logits = W_out h_L, J = cross-entropy.
    W_l ~ N(0, init_scale²/D), b_l = 0: the same random draws for every setting (seeded), so
    settings differ only in what the controls change. One batch x ~ N(0, 1) (B, D), random labels.
    wrt: ``"activation"`` gives ∂J/∂h_l (B, D), the gradient arriving at layer l's output (the
    upstream gradient of lecture 3); ``"weight"`` gives ∂J/∂W_l = Σ_b δ_l h_{l−1}ᵀ (D, D), whose
    norm varies less with depth (small δ meets large h and vice versa).
    Returns ``{"layer 1": grad, ..., "layer L": grad}``.
    """
    if not isinstance(depth, int) or depth < 1:
        raise ValueError(f"depth must be a positive int; got {depth!r}")
    if activation not in MLP_ACTIVATIONS:
        raise ValueError(
            f"activation must be one of {MLP_ACTIVATIONS}; got {activation!r}"
        )
    if not init_scale > 0:
        raise ValueError(f"init_scale must be positive; got {init_scale}")
    if wrt not in ("weight", "activation"):
        raise ValueError(f"wrt must be 'weight' or 'activation'; got {wrt!r}")
    gen = torch.Generator().manual_seed(run_seed(seed))
    x = torch.randn(batch, width, generator=gen, dtype=dtype).to(device)  # (B, D)
    y = torch.randint(n_classes, (batch,), generator=gen).to(device)  # (B,)
    W_out = torch.randn(n_classes, width, generator=gen, dtype=dtype) / math.sqrt(width)
    W_out = W_out.to(device)  # (C, D)
    Ws = [
        (
            torch.randn(width, width, generator=gen, dtype=dtype)
            * init_scale
            / math.sqrt(width)
        )
        .to(device)
        .requires_grad_()
        for _ in range(depth)
    ]  # L × (D, D)
    f = getattr(torch, activation)
    hs, h = [], x
    with torch.enable_grad(), one_thread():
        for W in Ws:
            u = F.layer_norm(h, (width,)) if layernorm else h  # (B, D)
            a = f(u @ W.T)  # (B, D)  (b_l = 0 adds nothing to the gradients of W)
            h = h + a if residual else a  # (B, D)
            h.retain_grad()
            hs.append(h)
        loss = F.cross_entropy(h @ W_out.T, y)  # ()
        loss.backward()
    grads = [W.grad for W in Ws] if wrt == "weight" else [h.grad for h in hs]
    return {f"layer {l}": g.detach() for l, g in enumerate(grads, start=1)}
