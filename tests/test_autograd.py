"""The micro autograd engine against torch.autograd on many random expressions (float64).

Each random expression is a small program evaluated twice, once over engine ``Value``s and once
over torch tensors that require grad: both support the same ``+ - * @ .tanh() .sum(dim)`` ...
"""

from __future__ import annotations

import random

import pytest
import torch
import torch.nn.functional as F

from course_lib.backprop import (
    MultiplyGate,
    OpCounter,
    Value,
    grad,
    grad_of,
    gradient_check,
    gradient_check_precision,
    separate_vs_shared_cost,
    softmax_cross_entropy,
    zero_grad,
)

TOL = dict(rtol=1e-8, atol=1e-8)
N_CASES = 40


def _ce(z, y):
    return (
        softmax_cross_entropy(z, y) if isinstance(z, Value) else F.cross_entropy(z, y)
    )


def _emb(table, ids):
    return table.embedding(ids) if isinstance(table, Value) else table[ids]


UNARY = {
    "tanh": lambda a: a.tanh(),
    "sigmoid": lambda a: a.sigmoid(),
    "relu": lambda a: a.relu(),
    "exp": lambda a: (a.tanh() * 2.0).exp(),  # bounded input: no overflow
    "log": lambda a: (a * a + 0.5).log(),  # positive input
    "neg": lambda a: -a,
    "scale": lambda a: a * 0.7 - 0.1,
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
}


def _shapes_like(rng: random.Random, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts against ``shape``: the same, ones in places, or a suffix."""
    choice = rng.randrange(4)
    if choice == 0:
        return shape
    if choice == 1:
        return tuple(1 if rng.random() < 0.5 else s for s in shape)
    if choice == 2:
        return shape[rng.randrange(len(shape) + 1) :]
    return ()


def elementwise_program(rng: random.Random):
    """Leaves of broadcastable shapes, a random chain of unary and binary gates over a pool."""
    shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 3)))
    shapes = [shape] + [_shapes_like(rng, shape) for _ in range(rng.randint(1, 3))]
    steps = []
    for _ in range(rng.randint(3, 12)):
        if rng.random() < 0.4:
            steps.append(("u", rng.choice(list(UNARY))))
        else:
            steps.append(("b", rng.choice(list(BINARY)), rng.random(), rng.random()))
    dim = rng.randrange(len(shape))
    keep = rng.random() < 0.5

    def run(*leaves):
        pool = list(leaves)
        for step in steps:  # operands come from the pool: sub-expressions are reused
            if step[0] == "u":
                pool.append(UNARY[step[1]](pool[-1]))
            else:
                a = pool[int(step[2] * len(pool))]
                b = pool[int(step[3] * len(pool))]
                pool.append(BINARY[step[1]](a, b))
        full = pool[-1] + pool[0]  # (shape)  every step broadcasts to the first leaf
        return (full.sum(dim, True) * pool[len(pool) // 2]).sum(dim, keep).sum()

    return shapes, run


def mlp_program(rng: random.Random):
    """x W₁ᵀ + b₁ -> f -> ... -> logits -> cross-entropy (or uᵀh with vectors)."""
    widths = [rng.randint(1, 6) for _ in range(rng.randint(2, 5))]
    acts = [rng.choice(["tanh", "sigmoid", "relu"]) for _ in widths[1:]]
    batch = rng.randint(1, 5)
    vector = rng.random() < 0.3
    shapes = [(widths[0],) if vector else (batch, widths[0])]
    for n, m in zip(widths[:-1], widths[1:]):
        shapes += [(m, n), (m,)]
    shapes.append((widths[-1],))
    targets = torch.tensor([rng.randrange(widths[-1]) for _ in range(batch)])

    def run(x, *params):
        h = x
        for i, act in enumerate(acts):
            W, b = params[2 * i], params[2 * i + 1]
            z = W @ h + b if vector else h @ W.T + b  # (m,) or (B, m)
            h = getattr(z, act)()
        if vector:
            return (h * params[-1]).sum()  # s = uᵀ h
        return _ce(h * params[-1], targets)

    return shapes, run


def dag_program(rng: random.Random):
    """Heavy sharing, keepdim sums broadcast back, transposes, embedding rows, reshape."""
    V, D, T = rng.randint(2, 6), rng.randint(1, 4), rng.randint(1, 5)
    ids = torch.tensor([rng.randrange(V) for _ in range(T)])  # repeats are likely
    shapes = [(V, D), (D, D)]
    picks = [(rng.random(), rng.random(), rng.choice(list(BINARY))) for _ in range(6)]

    def run(E, M):
        x = _emb(E, ids)  # (T, D)
        nodes = [x, x @ M, (x @ M.T).tanh(), x - x.sum(1, True) * 0.3]
        for p, q, op in picks:
            nodes.append(
                BINARY[op](nodes[int(p * len(nodes))], nodes[int(q * len(nodes))])
            )
        flat = nodes[-1].reshape(T * D)  # (T·D,)
        return (flat * flat).sum() + nodes[2].sigmoid().sum()

    return shapes, run


def _compare(shapes, run, seed):
    gen = torch.Generator().manual_seed(seed)
    data = [torch.randn(s, generator=gen, dtype=torch.float64) for s in shapes]
    values = [Value(d, requires_grad=True) for d in data]
    tensors = [d.clone().requires_grad_() for d in data]
    out, want = run(*values), run(*tensors)
    torch.testing.assert_close(out.data, want.detach(), **TOL)
    want.backward()
    out.backward()
    for v, t in zip(values, tensors):
        expected = t.grad if t.grad is not None else torch.zeros_like(t)
        got = v.grad if v.grad is not None else torch.zeros_like(v.data)
        torch.testing.assert_close(got, expected, **TOL)


@pytest.mark.parametrize("seed", range(N_CASES))
@pytest.mark.parametrize("program", [elementwise_program, mlp_program, dag_program])
def test_random_expressions_match_torch(program, seed):
    shapes, run = program(random.Random(seed))
    _compare(shapes, run, seed)


def test_non_scalar_backward_with_a_gradient_matches_torch():
    gen = torch.Generator().manual_seed(1)
    W, x = (
        torch.randn(3, 4, generator=gen, dtype=torch.float64),
        torch.randn(4, dtype=torch.float64),
    )
    g = torch.randn(3, generator=gen, dtype=torch.float64)
    Wv = Value(W, requires_grad=True)
    (Wv @ Value(x)).tanh().backward(g)
    Wt = W.clone().requires_grad_()
    (Wt @ x).tanh().backward(g)
    torch.testing.assert_close(Wv.grad, Wt.grad, **TOL)


def test_shared_subexpressions_are_differentiated_once():
    x = Value(torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64), requires_grad=True)
    h = x.tanh()  # used three times
    s = (h * h + h).sum()
    ops = s.backward()
    assert ops.gate_calls == 4  # sum, add, multiply, tanh: each once
    assert ops.by_op["tanh"] == 3  # one multiply per element, once
    assert ops.by_op["multiply"] == 6  # both inputs of h * h
    t = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (t.tanh() * t.tanh() + t.tanh()).sum().backward()
    torch.testing.assert_close(x.grad, t.grad, **TOL)
    assert h.grad is not None  # intermediate gradients are kept for inspection


def test_matmul_counts_m_k_n_per_input():
    A = Value(torch.ones(2, 3, dtype=torch.float64), requires_grad=True)
    B = Value(torch.ones(3, 4, dtype=torch.float64), requires_grad=True)
    ops = (A @ B).sum().backward()
    assert ops.by_op == {"matmul": 2 * 2 * 3 * 4, "sum": 0}
    C = Value(torch.ones(3, 4, dtype=torch.float64))  # a constant gets no gradient
    assert (A @ C).sum().backward().by_op["matmul"] == 2 * 3 * 4
    assert C.grad is None


def test_deep_graph_needs_no_recursion():
    x = Value(torch.tensor(1.0, dtype=torch.float64), requires_grad=True)
    y = x
    for _ in range(3_000):
        y = y + x * 1e-4
    y.backward()
    assert x.grad.item() == pytest.approx(1 + 3_000 * 1e-4)


def test_backward_twice_needs_retain_graph():
    x = Value(torch.tensor([1.0, 2.0], dtype=torch.float64), requires_grad=True)
    s = (x * x).sum()
    s.backward(retain_graph=True)
    s.backward()  # allowed once more; leaf gradients accumulate, as in torch
    torch.testing.assert_close(x.grad, 4 * x.data)
    with pytest.raises(RuntimeError, match="second time.*retain_graph=True"):
        s.backward()
    with pytest.raises(RuntimeError, match="second time"):
        (s * 2.0).backward()  # a new node on top of the freed graph
    zero_grad([x])
    assert x.grad is None


def test_non_scalar_backward_needs_a_gradient():
    x = Value(torch.ones(2, 3), requires_grad=True)
    with pytest.raises(RuntimeError, match=r"non-scalar of shape \(2, 3\).*gradient"):
        (x * 2.0).backward()
    with pytest.raises(ValueError, match=r"gradient must have shape \(2, 3\)"):
        (x * 2.0).backward(torch.ones(3))


def test_no_path_to_a_parameter_is_a_clear_error():
    W = Value(torch.ones(2, 2), requires_grad=True, name="W")
    unused = Value(torch.ones(2), requires_grad=True, name="b_unused")
    s = (W * W).sum()
    s.backward(retain_graph=True)
    assert grad_of(W) is W.grad
    with pytest.raises(RuntimeError, match="'b_unused' has no gradient: no path"):
        grad_of(unused)
    with pytest.raises(ValueError, match="b_unused has no path to the output"):
        grad(s, [W, unused])
    with pytest.raises(RuntimeError, match="nothing here requires grad"):
        (Value(torch.ones(2)) * 3.0).sum().backward()


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda a, b: a + b, r"add gate: shapes \(2, 3\) and \(4,\) do not broadcast"),
        (lambda a, b: a * b, r"multiply gate: shapes \(2, 3\) and \(4,\)"),
        (lambda a, b: a @ b, r"matmul gate: shapes \(2, 3\) @ \(4,\).*3 and 4 differ"),
        (lambda a, b: a.sum(dim=2), "dim 2 is out of range"),
        (lambda a, b: b.T, r"transpose gate.*\(4,\)"),
        (lambda a, b: b.embedding(torch.tensor([0])), r"table must be \(V, D\)"),
        (lambda a, b: a.embedding(torch.tensor([2])), r"ids must be in 0\.\.1"),
        (
            lambda a, b: softmax_cross_entropy(a, torch.tensor([0])),
            r"targets must be 2",
        ),
        (lambda a, b: softmax_cross_entropy(a, torch.tensor([0, 3])), r"in 0\.\.2"),
        (lambda a, b: softmax_cross_entropy(b, torch.tensor([0])), r"logits must be"),
    ],
)
def test_gate_shape_errors_name_the_gate_and_shapes(build, match):
    a = Value(torch.ones(2, 3), requires_grad=True)
    b = Value(torch.ones(4), requires_grad=True)
    with pytest.raises(ValueError, match=match):
        build(a, b)


def test_type_errors():
    a = Value(torch.ones(2), requires_grad=True)
    with pytest.raises(TypeError, match="dtypes differ"):
        a + Value(torch.ones(2, dtype=torch.float64))
    with pytest.raises(TypeError, match="Value or a number"):
        a + "x"
    with pytest.raises(TypeError, match="only float data"):
        Value(torch.tensor([1, 2]), requires_grad=True)
    with pytest.raises(TypeError, match="integers"):
        Value(torch.ones(2, 2)).embedding(torch.tensor([0.0]))


def test_value_copies_its_data_and_prints():
    data = torch.zeros(2)
    v = Value(data, requires_grad=True, name="w")
    v.data += 1
    assert data.sum() == 0
    assert "'w'" in repr(v) and "leaf" in repr(v) and "op='tanh'" in repr(v.tanh())


def test_multiply_gate_forward_backward():
    gate = MultiplyGate()
    with pytest.raises(RuntimeError, match="forward"):
        gate.backward(torch.ones(1))
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
    y = torch.tensor([10.0, -1.0], dtype=torch.float64)  # broadcast over rows
    z = gate.forward(x, y)
    dz = torch.tensor([[1.0, 0.5], [2.0, -1.0]], dtype=torch.float64)
    dx, dy = gate.backward(dz)
    xt, yt = x.clone().requires_grad_(), y.clone().requires_grad_()
    (xt * yt).backward(dz)
    torch.testing.assert_close(z, x * y)
    torch.testing.assert_close(dx, xt.grad, **TOL)
    torch.testing.assert_close(dy, yt.grad, **TOL)
    with pytest.raises(ValueError, match=r"\(2, 2\) and \(3,\)"):
        gate.forward(x, torch.ones(3))


def test_gradient_check_passes_and_catches_a_wrong_gradient():
    gen = torch.Generator().manual_seed(3)
    W = Value(torch.randn(4, 3, generator=gen, dtype=torch.float64), requires_grad=True)
    b = Value(torch.randn(4, generator=gen, dtype=torch.float64), requires_grad=True)
    x = Value(torch.randn(5, 3, generator=gen, dtype=torch.float64))
    y = torch.tensor([0, 3, 1, 1, 2])
    loss = lambda: softmax_cross_entropy((x @ W.T + b).tanh(), y)  # noqa: E731
    before = W.data.clone()
    assert gradient_check(loss, [W, b]) < 1e-6
    assert torch.equal(W.data, before)  # the data is restored

    def wrong_tanh(z: Value) -> Value:  # a bug: forgets the local gradient 1 − tanh²
        return Value._make(torch.tanh(z.data), (z,), "tanh", lambda g, need, ops: (g,))

    bad = lambda: softmax_cross_entropy(wrong_tanh(x @ W.T + b), y)  # noqa: E731
    assert gradient_check(bad, [W, b]) > 1e-2


def test_float32_cannot_pass_a_tight_gradient_check():
    errors = gradient_check_precision(seed=0)
    assert min(errors["float64"]) < 1e-7
    assert min(errors["float32"]) > 1e-4
    assert len(errors["eps"]) == len(errors["float32"]) == len(errors["float64"])


def test_separate_passes_repeat_the_upstream_work():
    cost = separate_vs_shared_cost((4, 5, 6), seed=0)
    assert set(cost.per_parameter) == {"W1", "b1", "W2", "b2", "u"}
    assert cost.separate == sum(cost.per_parameter.values())
    # one pass: each input of each gate once. s = uᵀ tanh(W2 tanh(W1 x + b1) + b2):
    # u·h2 (6+6), tanh (6), W2 @ h1 (5·6 for W2, 5·6 for h1), tanh (5), W1 @ x (4·5)
    assert cost.shared == 6 + 6 + 6 + 30 + 30 + 5 + 20
    assert cost.gate_calls_shared == 8  # sum, mul, then tanh, add, matmul per layer
    assert cost.separate > cost.shared and cost.ratio > 1.5
    deeper = separate_vs_shared_cost((4, 5, 5, 5, 5, 6), seed=0)
    assert deeper.ratio > cost.ratio  # the repeated work grows with depth
    with pytest.raises(ValueError, match="widths"):
        separate_vs_shared_cost((4,))


def test_counter_can_be_shared_across_passes():
    c = OpCounter()
    x = Value(torch.ones(3), requires_grad=True)
    (x.tanh()).sum().backward(counter=c)
    (x.sigmoid()).sum().backward(counter=c)
    assert c.multiplies == 6 and c.gate_calls == 4
