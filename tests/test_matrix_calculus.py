"""The lecture-3 Jacobians against torch.autograd.functional.jacobian and centred differences."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.autograd.functional import jacobian

from course_lib.backprop import matrix_calculus as mc

TOL = dict(rtol=1e-8, atol=1e-8)
NUM_TOL = dict(rtol=1e-6, atol=1e-7)  # centred differences: O(eps²) + rounding


@pytest.fixture
def gen() -> torch.Generator:
    return torch.Generator().manual_seed(0)


def _randn(gen: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=gen, dtype=torch.float64)


@pytest.mark.parametrize(("m", "n"), [(1, 1), (3, 4), (5, 2)])
def test_affine_jacobians(gen, m, n):
    W, x, b = _randn(gen, m, n), _randn(gen, n), _randn(gen, m)
    want_x = jacobian(lambda x_: W @ x_ + b, x)  # (m, n)
    want_W = jacobian(lambda W_: W_ @ x + b, W)  # (m, m, n)
    want_b = jacobian(lambda b_: W @ x + b_, b)  # (m, m)
    torch.testing.assert_close(mc.affine_jacobian_x(W), want_x, **TOL)
    torch.testing.assert_close(
        mc.affine_jacobian_W(x, m), want_W.reshape(m, m * n), **TOL
    )
    torch.testing.assert_close(mc.affine_jacobian_b(m), want_b, **TOL)
    torch.testing.assert_close(
        mc.numerical_jacobian(lambda W_: W_ @ x + b, W), want_W, **NUM_TOL
    )
    torch.testing.assert_close(
        mc.numerical_jacobian(lambda x_: W @ x_ + b, x), want_x, **NUM_TOL
    )


def test_shape_convention_gradients(gen):
    """s = uᵀ f(Wx + b): ∂s/∂W = δ xᵀ, ∂s/∂b = δ, ∂s/∂x = Wᵀδ with δ = u ∘ f'(z)."""
    m, n = 4, 3
    W, x, b, u = _randn(gen, m, n), _randn(gen, n), _randn(gen, m), _randn(gen, m)
    W_, x_, b_ = (t.clone().requires_grad_() for t in (W, x, b))
    s = u @ torch.tanh(W_ @ x_ + b_)
    s.backward()
    delta = u * mc.activation_derivative(W @ x + b, "tanh")  # (m,)
    # the Jacobian chain uᵀ diag(f'(z)) gives the same δ as the elementwise product
    chain = u @ mc.elementwise_jacobian(W @ x + b, "tanh")
    torch.testing.assert_close(chain, delta, **TOL)
    grads = mc.affine_gradients(delta, W, x)
    torch.testing.assert_close(grads["W"], W_.grad, **TOL)
    torch.testing.assert_close(grads["b"], b_.grad, **TOL)
    torch.testing.assert_close(grads["x"], x_.grad, **TOL)
    # δ xᵀ is the Jacobian form δᵀ (∂z/∂W) reshaped to W's shape
    flat = delta @ mc.affine_jacobian_W(x, m)  # (m·n,)
    torch.testing.assert_close(flat.reshape(m, n), grads["W"], **TOL)


@pytest.mark.parametrize("activation", mc.ACTIVATIONS)
def test_elementwise_jacobian_is_diagonal(gen, activation):
    f = {"tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu}[activation]
    z = _randn(gen, 6)
    J = mc.elementwise_jacobian(z, activation)
    torch.testing.assert_close(J, jacobian(f, z), **TOL)
    torch.testing.assert_close(J, torch.diag(torch.diagonal(J)))
    torch.testing.assert_close(mc.numerical_jacobian(f, z), J, **NUM_TOL)
    batch = _randn(gen, 2, 3)  # (..., m) -> (..., m, m)
    assert mc.elementwise_jacobian(batch, activation).shape == (2, 3, 3)


def test_softmax_jacobian(gen):
    z = _randn(gen, 5) * 3
    J = mc.softmax_jacobian(z)
    want = jacobian(lambda z_: torch.softmax(z_, dim=-1), z)
    torch.testing.assert_close(J, want, **TOL)
    torch.testing.assert_close(J, J.T, **TOL)  # symmetric
    torch.testing.assert_close(J.sum(dim=1), torch.zeros(5, dtype=J.dtype), **TOL)
    torch.testing.assert_close(
        mc.numerical_jacobian(lambda z_: torch.softmax(z_, -1), z), want, **NUM_TOL
    )
    zs = _randn(gen, 3, 4)  # batched: one Jacobian per row
    for row, Jb in zip(zs, mc.softmax_jacobian(zs)):
        torch.testing.assert_close(Jb, mc.softmax_jacobian(row), **TOL)


def test_cross_entropy_grad_is_p_minus_y(gen):
    z = _randn(gen, 7)
    y = 3
    want = jacobian(lambda z_: -torch.log_softmax(z_, -1)[y], z)
    got = mc.cross_entropy_grad(z, y)
    torch.testing.assert_close(got, want, **TOL)
    torch.testing.assert_close(got.sum(), torch.tensor(0.0, dtype=z.dtype), **TOL)
    one_hot = F.one_hot(torch.tensor(y), 7).to(z.dtype)
    torch.testing.assert_close(mc.cross_entropy_grad(z, one_hot), want, **TOL)
    torch.testing.assert_close(
        mc.numerical_jacobian(lambda z_: -torch.log_softmax(z_, -1)[y], z),
        want,
        **NUM_TOL,
    )
    # batched with class ids: the per-example gradient (F.cross_entropy's sum reduction)
    zb, yb = _randn(gen, 4, 5), torch.tensor([0, 4, 2, 2])
    want_b = jacobian(lambda z_: F.cross_entropy(z_, yb, reduction="sum"), zb)
    torch.testing.assert_close(mc.cross_entropy_grad(zb, yb), want_b, **TOL)


def test_numerical_jacobian_shape_and_no_side_effects(gen):
    x = _randn(gen, 2, 3)
    copy = x.clone()
    J = mc.numerical_jacobian(lambda t: (t * t).sum(dim=0), x)  # (3,) out
    assert J.shape == (3, 2, 3)
    torch.testing.assert_close(J, jacobian(lambda t: (t * t).sum(dim=0), x), **NUM_TOL)
    assert torch.equal(x, copy)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (
            lambda: mc.affine_jacobian_x(torch.zeros(3)),
            ValueError,
            r"W must be 2-D.*\(3,\)",
        ),
        (lambda: mc.affine_jacobian_W(torch.zeros(3), 0), ValueError, "positive int"),
        (lambda: mc.affine_jacobian_W([1.0], 2), TypeError, "torch.Tensor"),
        (
            lambda: mc.affine_gradients(
                torch.zeros(2), torch.zeros(3, 3), torch.zeros(3)
            ),
            ValueError,
            r"\(2, 3\).*got \(3, 3\)",
        ),
        (lambda: mc.activation_derivative(torch.zeros(2), "gelu"), ValueError, "gelu"),
        (lambda: mc.softmax_jacobian(torch.tensor(1.0)), ValueError, "class dimension"),
        (lambda: mc.cross_entropy_grad(torch.zeros(3), 3), ValueError, r"0\.\.2"),
        (
            lambda: mc.cross_entropy_grad(torch.zeros(2, 3), torch.tensor([0])),
            ValueError,
            r"leading shape \(2,\)",
        ),
        (
            lambda: mc.cross_entropy_grad(torch.zeros(3), torch.zeros(4)),
            ValueError,
            r"z's shape \(3,\)",
        ),
        (
            lambda: mc.numerical_jacobian(torch.sin, torch.zeros(2), 0.0),
            ValueError,
            "eps",
        ),
    ],
)
def test_bad_input_is_named(call, error, match):
    with pytest.raises(error, match=match):
        call()
