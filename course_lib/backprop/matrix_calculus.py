r"""The Jacobians of CS224N lecture 3 ("Backprop and neural networks"), in closed form. Chapter 3.

The lecture's network for one window x is

    z = W x + b,    h = f(z),    s = uᵀ h                                        (lecture 3)

with x ∈ ℝⁿ, W ∈ ℝ^{m×n}, b ∈ ℝᵐ. Its Jacobians, each a function here:

    ∂z/∂x = W                    (``affine_jacobian_x``)
    ∂z/∂W = I_m ⊗ xᵀ, (m, m·n)    (``affine_jacobian_W``: W flattened row by row)
    ∂z/∂b = I_m                  (``affine_jacobian_b``)
    ∂h/∂z = diag(f'(z))           (``elementwise_jacobian``)
    ∂p/∂z = diag(p) − p pᵀ        (``softmax_jacobian``, p = softmax(z))
    ∂J/∂z = p − y                 (``cross_entropy_grad``, J = −log p_y)

and the *shape convention* of the lecture: with the error signal δ = ∂s/∂z (a row in the Jacobian
form, stored as a vector), the gradient of s has the shape of each parameter:
∂s/∂W = δ xᵀ (m, n), ∂s/∂b = δ (m,), ∂s/∂x = Wᵀ δ (n,) (``affine_gradients``).
``numerical_jacobian`` checks any of them with centred differences.

Shape letters: n inputs, m outputs (units), C classes, ``...`` leading batch dimensions.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

__all__ = [
    "ACTIVATIONS",
    "activation_derivative",
    "affine_gradients",
    "affine_jacobian_W",
    "affine_jacobian_b",
    "affine_jacobian_x",
    "cross_entropy_grad",
    "elementwise_jacobian",
    "numerical_jacobian",
    "softmax_jacobian",
]

ACTIVATIONS = ("tanh", "sigmoid", "relu")


def _check_tensor(x: object, name: str, ndim: int | None = None) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor; got {type(x).__name__}")
    if ndim is not None and x.dim() != ndim:
        raise ValueError(f"{name} must be {ndim}-D; got shape {tuple(x.shape)}")
    return x


def affine_jacobian_x(W: Tensor) -> Tensor:
    """∂z/∂x for z = Wx + b: the matrix W itself (lecture 3). W: (m, n). Returns (m, n)."""
    return _check_tensor(W, "W", 2).clone()  # (m, n)


def affine_jacobian_W(x: Tensor, m: int) -> Tensor:
    r"""∂z/∂W for z = Wx + b in Jacobian form: ∂z_i/∂W_jk = 1[i = j] x_k (lecture 3).

    W is flattened row by row (``W.reshape(-1)``), so the Jacobian is I_m ⊗ xᵀ: row i holds xᵀ in
    the columns of W's row i and zeros elsewhere. Mostly zeros: that is why backprop never builds
    it and uses the shape-convention gradient δ xᵀ instead (``affine_gradients``).
    x: (n,); m: the number of outputs. Returns (m, m·n).
    """
    _check_tensor(x, "x", 1)
    if not isinstance(m, int) or m < 1:
        raise ValueError(f"m (the number of outputs) must be a positive int; got {m!r}")
    eye = torch.eye(m, dtype=x.dtype, device=x.device)  # (m, m)
    return torch.kron(eye, x[None, :])  # (m, m·n)


def affine_jacobian_b(
    m: int,
    *,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str | None = None,
) -> Tensor:
    """∂z/∂b for z = Wx + b: the identity I_m (lecture 3). Returns (m, m)."""
    if not isinstance(m, int) or m < 1:
        raise ValueError(f"m (the number of outputs) must be a positive int; got {m!r}")
    return torch.eye(m, dtype=dtype, device=device)  # (m, m)


def affine_gradients(delta: Tensor, W: Tensor, x: Tensor) -> dict[str, Tensor]:
    r"""The shape-convention gradients of a scalar s through z = Wx + b (lecture 3).

    With the upstream error signal δ = ∂s/∂z:  ∂s/∂W = δ xᵀ,  ∂s/∂b = δ,  ∂s/∂x = Wᵀ δ.
    delta: (m,), W: (m, n), x: (n,). Returns ``{"W": (m, n), "b": (m,), "x": (n,)}``.
    """
    for value, name in ((delta, "delta"), (x, "x")):
        _check_tensor(value, name, 1)
    _check_tensor(W, "W", 2)
    if W.shape != (delta.numel(), x.numel()):
        raise ValueError(
            f"W must be (m, n) = ({delta.numel()}, {x.numel()}) for delta (m,) and x (n,); "
            f"got {tuple(W.shape)}"
        )
    return {
        "W": torch.outer(delta, x),  # (m, n)  δ xᵀ
        "b": delta.clone(),  # (m,)
        "x": W.T @ delta,  # (n,)  Wᵀ δ
    }


def activation_derivative(z: Tensor, activation: str) -> Tensor:
    """f'(z) elementwise for f in ``ACTIVATIONS`` (relu'(0) is taken as 0, as in torch).

    tanh' = 1 − tanh², σ' = σ(1 − σ), relu' = 1[z > 0]. z: any shape; returns the same shape.
    """
    _check_tensor(z, "z")
    if activation == "tanh":
        return 1 - torch.tanh(z) ** 2
    if activation == "sigmoid":
        s = torch.sigmoid(z)
        return s * (1 - s)
    if activation == "relu":
        return (z > 0).to(z.dtype)
    raise ValueError(f"activation must be one of {ACTIVATIONS}; got {activation!r}")


def elementwise_jacobian(z: Tensor, activation: str) -> Tensor:
    """∂h/∂z for h = f(z) elementwise: the diagonal matrix diag(f'(z)) (lecture 3).

    z: (..., m). Returns (..., m, m), zero off the diagonal (h_i depends on z_i only).
    """
    return torch.diag_embed(activation_derivative(z, activation))  # (..., m, m)


def softmax_jacobian(z: Tensor) -> Tensor:
    r"""∂p/∂z for p = softmax(z): diag(p) − p pᵀ, i.e. ∂p_i/∂z_j = p_i(1[i = j] − p_j) (lecture 3).

    z: (..., C) logits. Returns (..., C, C), symmetric, each row summing to 0.
    """
    _check_tensor(z, "z")
    if z.dim() == 0:
        raise ValueError("z must have a class dimension (..., C); got a scalar")
    p = torch.softmax(z, dim=-1)  # (..., C)
    return torch.diag_embed(p) - p[..., :, None] * p[..., None, :]  # (..., C, C)


def cross_entropy_grad(z: Tensor, y: Tensor | int) -> Tensor:
    r"""∂J/∂z for J = −log softmax(z)_y: the famous p − y (lecture 3).

    z: (..., C) logits; y: the target as class ids (...) (an int for one example) or as a
    distribution over the classes (..., C), e.g. one-hot. The gradient is per example (no 1/B:
    divide by the batch size yourself for a mean loss). Returns (..., C).
    """
    _check_tensor(z, "z")
    if z.dim() == 0:
        raise ValueError("z must have a class dimension (..., C); got a scalar")
    p = torch.softmax(z, dim=-1)  # (..., C)
    y = torch.as_tensor(y, device=z.device)
    if y.dtype in (torch.int64, torch.int32, torch.int16, torch.uint8):
        if y.shape != z.shape[:-1]:
            raise ValueError(
                f"class ids y must have z's leading shape {tuple(z.shape[:-1])}; "
                f"got {tuple(y.shape)}"
            )
        if y.numel() and not (0 <= int(y.min()) and int(y.max()) < z.size(-1)):
            raise ValueError(f"class ids must be in 0..{z.size(-1) - 1}")
        y = torch.nn.functional.one_hot(y.long(), z.size(-1)).to(z.dtype)  # (..., C)
    elif y.shape != z.shape:
        raise ValueError(
            f"a target distribution y must have z's shape {tuple(z.shape)}; "
            f"got {tuple(y.shape)}"
        )
    return p - y  # (..., C)


def numerical_jacobian(
    f: Callable[[Tensor], Tensor], x: Tensor, eps: float = 1e-6
) -> Tensor:
    r"""The Jacobian of f at x by centred differences: (f(x + ε e_j) − f(x − ε e_j)) / 2ε.

    The error is O(ε²) plus rounding of order (machine epsilon · |f|)/ε: use float64 (in
    float32 no ε is good, see ``autograd.gradient_check_precision``). x is not modified.
    f: tensor -> tensor; x: any shape. Returns f(x).shape + x.shape, the layout of
    ``torch.autograd.functional.jacobian``.
    """
    _check_tensor(x, "x")
    if not eps > 0:
        raise ValueError(f"eps must be positive; got {eps}")
    with torch.no_grad():
        x = x.detach().clone()
        out_shape = torch.as_tensor(f(x)).shape
        flat = x.reshape(-1)  # (N,) a view of the copy
        columns = []
        for j in range(flat.numel()):
            old = flat[j].item()
            flat[j] = old + eps
            f_plus = torch.as_tensor(f(x)).clone()  # (*out)
            flat[j] = old - eps
            f_minus = torch.as_tensor(f(x)).clone()  # (*out)
            flat[j] = old
            columns.append((f_plus - f_minus).reshape(-1) / (2 * eps))  # (M,)
    if not columns:
        raise ValueError("x is empty; there is nothing to differentiate")
    jac = torch.stack(columns, dim=1)  # (M, N)
    return jac.reshape(*out_shape, *x.shape)  # (*out, *x)
