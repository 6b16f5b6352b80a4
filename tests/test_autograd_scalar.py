"""Scalar expressions of the kind micrograd's README and tests use (powers, a Value in a
denominator, relu, +=), run on the micro engine and on torch.autograd in float64."""

from __future__ import annotations

import pytest
import torch

from course_lib.backprop import Value

TOL = dict(rtol=1e-10, atol=1e-10)


def chain(x):
    """Reuse of one input along several paths, relu on both sides of 0."""
    y = 3 * x - 1 + x
    p = y.relu() + y * x
    s = (y * y).relu()
    return s + p + p * x * 0.5


def many_ops(a, b):
    """Every binary and unary operator, with rebinding ``+=`` as in micrograd's test."""
    c = a + b
    d = a * b + b**3
    c += c + 1
    c += 2 + c + (-a)
    d += d * 3 + (b + a).relu()
    d += 2 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 3.0
    g += 7.0 / f  # a Value in a denominator
    g += 2 ** (b / 4) + (a * b).tanh() - (b * 0.5).exp() / (b + 3)
    return g - ((a * a + 1) ** 0.5).log() + 1 / (1 + (-b).exp())


def neuron(x1, x2):
    """micrograd's README neuron: tanh(x1 w1 + x2 w2 + b), written with / and **."""
    n = x1 * -3.0 + x2 * 1.0 + 6.8813735870195432
    e = (2 * n).exp()
    return (e - 1) / (e + 1) + n**-2


def _both(fn, *xs):
    vals = [Value(torch.tensor(x, dtype=torch.float64), requires_grad=True) for x in xs]
    tens = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
    out_v, out_t = fn(*vals), fn(*tens)
    out_v.backward()
    out_t.backward()
    return out_v, out_t, vals, tens


@pytest.mark.parametrize(
    ("fn", "inputs"),
    [
        (chain, (-3.0,)),
        (chain, (2.5,)),
        (many_ops, (-4.0, 2.0)),
        (many_ops, (1.5, -0.7)),
        (neuron, (2.0, 0.0)),
        (neuron, (-1.2, 3.3)),
    ],
)
def test_scalar_expressions_match_torch(fn, inputs):
    out_v, out_t, vals, tens = _both(fn, *inputs)
    torch.testing.assert_close(out_v.data, out_t.detach(), **TOL)
    for v, t in zip(vals, tens, strict=True):
        torch.testing.assert_close(v.grad, t.grad, **TOL)


def test_division_and_powers_broadcast_like_torch():
    g = torch.Generator().manual_seed(0)
    a = torch.rand(3, 4, generator=g, dtype=torch.float64) + 0.5
    b = torch.rand(4, generator=g, dtype=torch.float64) + 0.5
    av, bv = Value(a, requires_grad=True), Value(b, requires_grad=True)
    at, bt = a.clone().requires_grad_(), b.clone().requires_grad_()
    for x, y in ((av, bv), (at, bt)):
        ((x / y + 10.0 / x - y**1.5 + 3**y) * x).sum().backward()
    torch.testing.assert_close(av.grad, at.grad, **TOL)
    torch.testing.assert_close(bv.grad, bt.grad, **TOL)


def test_bad_powers_and_divisors_are_explained():
    x = Value(torch.tensor(2.0, dtype=torch.float64), requires_grad=True)
    with pytest.raises(TypeError, match="exponent must be a number"):
        x**x
    with pytest.raises(ValueError, match="base > 0"):
        (-2.0) ** x
    with pytest.raises(TypeError, match="divide: expected a Value or a number"):
        x / "2"
    with pytest.raises(TypeError, match="dtypes differ"):
        x / Value(torch.tensor(1.0))
