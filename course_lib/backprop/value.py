r"""The nodes of the micro autograd engine: ``Value`` and its gates. Chapter 3.

CS224N lecture 3: each node of the computational graph holds its forward value and, for its
gate (add, multiply, matmul, tanh, sum, embedding ...), a closure with the local backward that
turns the upstream gradient into the downstream ones, downstream = upstream × local. A
broadcast input was used once per copy, so its gradients are summed back to its shape
(``_unbroadcast``). ``Value.backward`` hands the graph to ``engine``.

Shape legend: B batch, C classes, V vocabulary, D width; broadcasting follows torch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Union

import torch
from torch import Tensor

from course_lib.backprop.engine import OpCounter, _run_backward

__all__ = ["Value"]

Operand = Union["Value", float, int]
# A gate's local backward: (upstream g, which parents need a gradient, counter) -> their gradients
Backward = Callable[[Tensor, tuple[bool, ...], "OpCounter"], tuple[Tensor | None, ...]]


class Value:
    """A node of the computational graph: ``data`` (a tensor), ``grad``, parents, op, backward.

    Build leaves with ``Value(tensor, requires_grad=True, name="W")`` (the data is copied) and
    combine them with ``+ - * / ** @``, ``.tanh()``, ``.sum(dim)`` ...; each result remembers its
    parents, its op name and a closure computing the local backward. ``backward()`` on a scalar
    fills ``grad`` (same shape as ``data``) of every node that leads to it.
    """

    def __init__(
        self, data: Any, *, requires_grad: bool = False, name: str = ""
    ) -> None:
        data = (
            torch.as_tensor(data).detach().clone(memory_format=torch.contiguous_format)
        )
        if requires_grad and not data.is_floating_point():
            raise TypeError(f"only float data can require grad; got {data.dtype}")
        self._init(data, (), "", None, requires_grad, name)

    def _init(self, data, parents, op, backward, requires_grad, name="") -> None:
        self.data: Tensor = data
        self.grad: Tensor | None = None
        self.requires_grad = bool(requires_grad)
        self.name = name
        self.op = op
        self._parents: tuple[Value, ...] = parents
        self._backward: Backward | None = backward

    @classmethod
    def _make(
        cls, data: Tensor, parents: tuple[Value, ...], op: str, backward: Backward
    ):
        out = cls.__new__(cls)
        out._init(data, parents, op, backward, any(p.requires_grad for p in parents))
        return out

    # -- basics ------------------------------------------------------------------------
    shape = property(lambda self: tuple(self.data.shape))
    dtype = property(lambda self: self.data.dtype)
    is_leaf = property(lambda self: not self._parents)

    def item(self) -> float:
        return self.data.item()

    def __repr__(self) -> str:
        label = f"{self.name!r}, " if self.name else ""
        kind = f"op={self.op!r}" if self.op else "leaf"
        return f"Value({label}shape={self.shape}, {kind}, requires_grad={self.requires_grad})"

    def _lift(self, other: Operand, gate: str) -> Value:
        if isinstance(other, Value):
            if other.dtype != self.dtype:
                raise TypeError(
                    f"{gate}: dtypes differ, {self.dtype} and {other.dtype}"
                )
            return other
        if isinstance(other, (int, float)):
            return Value(torch.tensor(other, dtype=self.dtype, device=self.data.device))
        raise TypeError(
            f"{gate}: expected a Value or a number; got {type(other).__name__}"
        )

    # -- gates with two inputs -----------------------------------------------------------
    def _broadcast(self, other: Value, gate: str) -> None:
        check_broadcast(self.shape, other.shape, gate)

    def __add__(self, other: Operand) -> Value:
        """z = a + b; local gradients are identities, so each input gets g (summed to shape)."""
        b = self._lift(other, "add")
        self._broadcast(b, "add")
        sa, sb = self.shape, b.shape

        def backward(g, need, ops):
            da = _unbroadcast(g, sa) if need[0] else None  # (*a)
            db = _unbroadcast(g, sb) if need[1] else None  # (*b)
            return da, db

        return Value._make(self.data + b.data, (self, b), "add", backward)

    def __mul__(self, other: Operand) -> Value:
        """z = a ⊙ b elementwise; ∂z/∂a = b, ∂z/∂b = a (the lecture's multiply gate)."""
        b = self._lift(other, "multiply")
        self._broadcast(b, "multiply")
        a_data, b_data = self.data, b.data

        def backward(g, need, ops):
            da = db = None
            if need[0]:
                da = _unbroadcast(g * b_data, a_data.shape)  # (*a)
                ops.mul(g.numel())
            if need[1]:
                db = _unbroadcast(g * a_data, b_data.shape)  # (*b)
                ops.mul(g.numel())
            return da, db

        return Value._make(a_data * b_data, (self, b), "multiply", backward)

    def __matmul__(self, other: Value) -> Value:
        """z = A B for 1-D or 2-D A (m, k), B (k, n) (lecture 3).

        Local gradients: ∂s/∂A = g Bᵀ and ∂s/∂B = Aᵀ g, g the upstream gradient.
        """
        b = self._lift(other, "matmul")
        _check_matmul(self.shape, b.shape)
        A = self.data.reshape(-1, self.shape[-1])  # (m, k); a vector is one row
        Bm = b.data.reshape(b.shape[0], -1)  # (k, n); a vector is one column
        m, k, n = A.shape[0], A.shape[1], Bm.shape[1]

        def backward(g, need, ops):
            g = g.reshape(m, n)  # (m, n)
            da = db = None
            if need[0]:
                da = (g @ Bm.T).reshape(self.shape)  # (m, k)  g Bᵀ
                ops.mul(m * k * n)
            if need[1]:
                db = (A.T @ g).reshape(b.shape)  # (k, n)  Aᵀ g
                ops.mul(m * k * n)
            return da, db

        return Value._make(self.data @ b.data, (self, b), "matmul", backward)

    __radd__ = __add__
    __rmul__ = __mul__

    def __neg__(self) -> Value:
        return self * -1.0

    def __sub__(self, other: Operand) -> Value:
        return self + (-self._lift(other, "subtract"))

    def __rsub__(self, other: Operand) -> Value:
        return self._lift(other, "subtract") + (-self)

    def __truediv__(self, other: Operand) -> Value:
        """z = a / b: by a number, a × (1/b); by a Value, a × b⁻¹ (the power gate)."""
        if isinstance(other, Value):
            return self * self._lift(other, "divide") ** -1
        if not isinstance(other, (int, float)):
            raise TypeError(
                f"divide: expected a Value or a number; got {type(other).__name__}"
            )
        return self * (1.0 / other)

    def __rtruediv__(self, other: float | int) -> Value:
        """c / a = c × a⁻¹ for a number c (``10.0 / f``)."""
        return self._lift(other, "divide") * self**-1

    def __pow__(self, exponent: float | int) -> Value:
        """z = aᵖ for a number p; local gradient p·aᵖ⁻¹ (the power rule)."""
        if isinstance(exponent, bool) or not isinstance(exponent, (int, float)):
            raise TypeError(
                f"power: the exponent must be a number; got {type(exponent).__name__} "
                "(for a Value exponent write (p * a.log()).exp())"
            )
        a = self.data
        return self._elementwise(
            a**exponent, lambda: exponent * a ** (exponent - 1), "pow"
        )

    def __rpow__(self, base: float | int) -> Value:
        """z = cᵃ for a number c > 0, i.e. e^(a ln c); local gradient cᵃ ln c."""
        if isinstance(base, bool) or not isinstance(base, (int, float)):
            raise TypeError(
                f"power: the base must be a number; got {type(base).__name__}"
            )
        if base <= 0:
            raise ValueError(
                f"power: a number raised to a Value needs a base > 0 (cᵃ = e^(a ln c)); "
                f"got {base}"
            )
        z = torch.pow(base, self.data)
        return self._elementwise(z, lambda: z * math.log(base), "rpow")

    # -- gates with one input ------------------------------------------------------------
    def _elementwise(self, out: Tensor, local: Callable[[], Tensor], op: str) -> Value:
        def backward(g, need, ops):
            ops.mul(g.numel())
            return (g * local(),)  # (*a)  upstream × local, elementwise

        return Value._make(out, (self,), op, backward)

    def tanh(self) -> Value:
        """h = tanh(z); local gradient 1 − h² (diag(f'(z)) as an elementwise product)."""
        t = torch.tanh(self.data)
        return self._elementwise(t, lambda: 1 - t * t, "tanh")

    def sigmoid(self) -> Value:
        """h = σ(z); local gradient σ(z)(1 − σ(z))."""
        s = torch.sigmoid(self.data)
        return self._elementwise(s, lambda: s * (1 - s), "sigmoid")

    def relu(self) -> Value:
        """h = max(z, 0); local gradient 1[z > 0] (0 at z = 0, as in torch)."""
        z = self.data
        return self._elementwise(z.clamp_min(0), lambda: (z > 0).to(z.dtype), "relu")

    def exp(self) -> Value:
        """e^z; local gradient e^z."""
        e = torch.exp(self.data)
        return self._elementwise(e, lambda: e, "exp")

    def log(self) -> Value:
        """log z; local gradient 1/z."""
        z = self.data
        return self._elementwise(torch.log(z), lambda: 1 / z, "log")

    def sum(
        self, dim: int | Sequence[int] | None = None, keepdim: bool = False
    ) -> Value:
        """Σ over ``dim`` (all when None): every input element gets the upstream g (copied)."""
        shape = self.shape
        dims = tuple(range(len(shape))) if dim is None else _dims(dim, len(shape))

        def backward(g, need, ops):
            if not keepdim:
                for d in sorted(dims):
                    g = g.unsqueeze(d)
            return (g.expand(shape).clone(),)  # (*a)

        return Value._make(
            self.data.sum(dim=dims, keepdim=keepdim), (self,), "sum", backward
        )

    def reshape(self, *shape: int) -> Value:
        """The same elements in a new shape; the gradient is reshaped back."""
        old = self.shape
        out = self.data.reshape(*shape)
        return Value._make(
            out, (self,), "reshape", lambda g, need, ops: (g.reshape(old),)
        )

    @property
    def T(self) -> Value:
        """The transpose of a 2-D value; the gradient is transposed back."""
        if self.data.dim() != 2:
            raise ValueError(
                f"transpose gate: needs a 2-D value; got shape {self.shape}"
            )
        return Value._make(
            self.data.T, (self,), "transpose", lambda g, need, ops: (g.T,)
        )

    def embedding(self, ids: Tensor) -> Value:
        """Rows of a (V, D) table picked by integer ``ids`` (any shape) -> (*ids, D).

        The gradient of the table adds each picked row's gradient into its row
        (``index_add``): a word seen twice in a window gets both contributions.
        """
        if self.data.dim() != 2:
            raise ValueError(
                f"embedding gate: the table must be (V, D); got {self.shape}"
            )
        ids = torch.as_tensor(ids, device=self.data.device)
        if ids.is_floating_point() or ids.dtype == torch.bool:
            raise TypeError(f"embedding gate: ids must be integers; got {ids.dtype}")
        if ids.numel() and not (0 <= int(ids.min()) and int(ids.max()) < self.shape[0]):
            raise ValueError(f"embedding gate: ids must be in 0..{self.shape[0] - 1}")
        table = self.data

        def backward(g, need, ops):
            flat = g.reshape(-1, table.shape[1])  # (N, D)
            return (
                torch.zeros_like(table).index_add_(0, ids.reshape(-1), flat),
            )  # (V, D)

        return Value._make(table[ids], (self,), "embedding", backward)  # (*ids, D)

    # -- the backward pass ---------------------------------------------------------------
    def backward(
        self,
        gradient: Tensor | None = None,
        *,
        retain_graph: bool = False,
        counter: OpCounter | None = None,
    ) -> OpCounter:
        """Back-propagate from this node: one pass in reverse topological order.

        Each gate's local backward runs once; gradients arriving over several paths add.
        Leaves that require grad *accumulate* into ``.grad`` (call ``zero_grad`` between
        steps); every other node on the way keeps its gradient in ``.grad`` too, for
        inspection. ``gradient`` (same shape) is needed for a non-scalar node. Afterwards the
        graph is freed, as in torch, unless ``retain_graph=True``. Returns the ``OpCounter``.
        """
        if gradient is None:
            if self.data.numel() != 1:
                raise RuntimeError(
                    f"backward() on a non-scalar of shape {self.shape} needs a gradient "
                    "of the same shape (the upstream ∂s/∂z); reduce it with .sum() first "
                    "or pass backward(gradient=...)"
                )
            gradient = torch.ones_like(self.data)
        elif tuple(gradient.shape) != self.shape:
            raise ValueError(
                f"gradient must have shape {self.shape}; got {tuple(gradient.shape)}"
            )
        if not self.requires_grad:
            raise RuntimeError(
                "backward(): nothing here requires grad (no parameter leads to it)"
            )
        counter = OpCounter() if counter is None else counter
        grads, order = _run_backward(self, gradient, None, retain_graph, counter)
        for node in order:
            g = grads.get(id(node))
            if g is not None:
                leaf_sum = node.is_leaf and node.grad is not None
                node.grad = node.grad + g if leaf_sum else g
        return counter


def _check_matmul(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    """A @ B needs 1-D or 2-D inputs whose inner dimensions agree."""
    if not (1 <= len(a) <= 2 and 1 <= len(b) <= 2):
        raise ValueError(f"matmul gate: needs 1-D or 2-D inputs; got {a} @ {b}")
    if a[-1] != b[0]:
        raise ValueError(
            f"matmul gate: shapes {a} @ {b} do not match: "
            f"inner dimensions {a[-1]} and {b[0]} differ"
        )


def _dims(dim: int | Sequence[int], ndim: int) -> tuple[int, ...]:
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if any(not -ndim <= d < max(ndim, 1) for d in dims):
        raise ValueError(f"sum gate: dim {dim} is out of range for {ndim} dimensions")
    return tuple(sorted(d % max(ndim, 1) for d in dims))


def _unbroadcast(g: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sum ``g`` back to ``shape``: a broadcast input was used once per copy, so its grads add."""
    while g.dim() > len(shape):
        g = g.sum(dim=0)
    for d, size in enumerate(shape):
        if size == 1 and g.shape[d] != 1:
            g = g.sum(dim=d, keepdim=True)
    return g


def check_broadcast(a: tuple[int, ...], b: tuple[int, ...], gate: str) -> None:
    """Raise ValueError naming the gate when shapes ``a`` and ``b`` do not broadcast."""
    try:
        torch.broadcast_shapes(a, b)
    except RuntimeError:
        raise ValueError(f"{gate} gate: shapes {a} and {b} do not broadcast") from None
