"""Label smoothing: cross-entropy against a softened target distribution. Chapter 8.

Szegedy et al. (2016), section 7; used by Vaswani et al. (2017), section 5.4, with ε = 0.1.
Instead of the one-hot target y, the model is trained towards

    q = (1 − ε) · onehot(y) + ε / V          (every class gets ε / V, the gold one 1 − ε + ε / V)

and the loss is the cross-entropy H(q, p) = −Σ_v q_v log p_v, which equals
(1 − ε) · (−log p_y) + ε · mean_v(−log p_v): the usual loss plus a pull towards uniform.
``torch.nn.functional.cross_entropy(..., label_smoothing=ε)`` computes the same; the
translation model (``Transformer.loss``) calls it, and the tests compare the two.

Shape legend: N tokens (B·T flattened), V vocabulary.
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["label_smoothed_cross_entropy", "smoothed_targets"]


def _check(targets: Tensor, n_classes: int, epsilon: float) -> None:
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon must be in [0, 1]; got {epsilon}")
    if targets.dtype.is_floating_point or targets.dim() != 1:
        raise ValueError(
            f"targets must be a 1-D tensor of class ids (N,); got "
            f"{targets.dtype} {tuple(targets.shape)}"
        )
    if n_classes < 2:
        raise ValueError(f"need at least 2 classes; got {n_classes}")


def smoothed_targets(targets: Tensor, n_classes: int, epsilon: float) -> Tensor:
    """q = (1 − ε)·onehot(y) + ε/V for each target id: (N,) -> (N, V), rows sum to 1."""
    _check(targets, n_classes, epsilon)
    onehot = torch.nn.functional.one_hot(targets, n_classes).double()  # (N, V)
    return (1 - epsilon) * onehot + epsilon / n_classes  # (N, V)


def label_smoothed_cross_entropy(
    logits: Tensor, targets: Tensor, epsilon: float, *, ignore_index: int | None = None
) -> Tensor:
    """Mean of H(q, softmax(logits)) = −Σ_v q_v log p_v over the targets not ignored.

    logits: (N, V); targets: (N,) ids; ``ignore_index`` (padding) rows are left out of
    the mean, as in ``F.cross_entropy``. Returns a scalar in the dtype of the logits.
    """
    if logits.dim() != 2 or logits.size(0) != targets.size(0):
        raise ValueError(
            f"logits must be (N, V) with N = len(targets); got "
            f"{tuple(logits.shape)} and {tuple(targets.shape)}"
        )
    keep = (
        torch.ones_like(targets, dtype=torch.bool)
        if ignore_index is None
        else targets != ignore_index
    )  # (N,)
    q = smoothed_targets(targets[keep], logits.size(1), epsilon)  # (N', V)
    log_p = logits[keep].log_softmax(-1)  # (N', V)
    return -(q.to(log_p.dtype) * log_p).sum(-1).mean()  # ()
