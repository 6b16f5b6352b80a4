r"""The window classifier's gradients by hand: lecture 3's δs, chained layer by layer. Chapter 3.

Forward (``window_classifier``), for a batch of B windows with mean cross-entropy J:

    x = [e_{t−w}; …; e_{t+w}],   z = W x + b,   h = f(z),   s = U h + c,   p = softmax(s).

Backward, each step an upstream gradient times a local one (lecture 3):

    δ₂ = ∂J/∂s = (p − y) / B                      (softmax with cross-entropy)
    ∂J/∂U = δ₂ᵀ h,   ∂J/∂c = Σ_batch δ₂
    δ₁ = ∂J/∂z = (δ₂ U) ∘ f′(z)                   (δ = u ∘ f′(z), with Uᵀδ₂ as u)
    ∂J/∂W = δ₁ᵀ x,   ∂J/∂b = Σ_batch δ₁          (∂s/∂W = δ xᵀ, batched)
    ∂J/∂x = δ₁ W,    ∂J/∂e_w = Σ of ∂J/∂x's slots that hold word w

Shape letters: B batch, K = 2w+1 window slots, V vocabulary, D embedding width, H hidden
units, C tags.
"""

from __future__ import annotations

import torch
from torch import Tensor

from course_lib.backprop.matrix_calculus import (
    activation_derivative,
    cross_entropy_grad,
)
from course_lib.backprop.window_classifier import ACTIVATIONS

__all__ = ["window_gradients"]


def _check_window_inputs(
    params: dict[str, Tensor], ids: Tensor, tags: Tensor, activation: str
) -> None:
    """Clear errors for an unknown activation and for ids or tags of the wrong shape."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}; got {activation!r}")
    D, KD = params["E"].size(1), params["W"].size(1)
    if ids.dim() != 2 or ids.size(1) * D != KD:
        raise ValueError(
            f"ids must be (B, K) with K·D = {KD} (W's columns); "
            f"got {tuple(ids.shape)} with D = {D}"
        )
    if tags.shape != ids.shape[:1]:
        raise ValueError(f"tags must be ({ids.size(0)},); got {tuple(tags.shape)}")


def window_gradients(
    params: dict[str, Tensor], ids: Tensor, tags: Tensor, activation: str = "tanh"
) -> dict[str, Tensor]:
    """∂J/∂θ for θ = E, W, b, U, c of the window classifier, by the δs above. Chapter 3.

    params: ``init_params``'s dict (E (V, D), W (H, K·D), b (H,), U (C, H), c (C,));
    ids: (B, K) word ids; tags: (B,) tag ids. Returns a dict of the same keys, shapes.
    """
    _check_window_inputs(params, ids, tags, activation)
    E, W, b, U, c = (params[k] for k in ("E", "W", "b", "U", "c"))
    B, D = ids.size(0), E.size(1)
    x = E[ids].flatten(1)  # (B, K·D)
    z = x @ W.T + b  # (B, H)
    h = getattr(torch, activation)(z)  # (B, H)
    delta2 = cross_entropy_grad(h @ U.T + c, tags) / B  # (B, C)  ∂J/∂s = (p − y) / B
    delta1 = (delta2 @ U) * activation_derivative(z, activation)  # (B, H)  ∂J/∂z
    dx = (delta1 @ W).reshape(B, -1, D)  # (B, K, D)  ∂J/∂x, slot by slot
    dE = torch.zeros_like(E).index_add_(0, ids.flatten(), dx.flatten(0, 1))  # (V, D)
    return {
        "E": dE,
        "W": delta1.T @ x,  # (H, K·D)
        "b": delta1.sum(0),  # (H,)
        "U": delta2.T @ h,  # (C, H)
        "c": delta2.sum(0),  # (C,)
    }
