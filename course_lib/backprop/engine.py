r"""The backward pass of the micro autograd engine: one visit per node, in reverse order. Chapter 3.

CS224N lecture 3: sort the graph topologically, then visit it from the output back, and at
each gate turn the upstream gradient into the downstream ones, upstream × local; where a node
feeds several others (fan-out) the gradients arriving from them add. ``OpCounter`` records the
work, ``grad`` is ``torch.autograd.grad``'s counterpart, ``grad_of`` and ``zero_grad`` read and
reset the gradients that ``Value.backward`` accumulates. The engine sees nodes only through
their ``_parents``, ``_backward``, ``op`` and ``grad``: it does not import ``value``.

Shape legend: B batch, C classes, V vocabulary, D width; broadcasting follows torch.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import torch
from torch import Tensor

if TYPE_CHECKING:
    from course_lib.backprop.value import Value

__all__ = ["OpCounter", "grad", "grad_of", "zero_grad"]


@dataclass
class OpCounter:
    """The work of backward passes: scalar multiplies in "upstream × local" products, gate calls.

    Counted per gate: one multiply per element for elementwise gates, m·k·n per input of a
    (m, k) @ (k, n) matmul, none for add, sum, reshape and indexing (identity-like local
    gradients). ``by_op`` splits the multiplies by the gate's op name.
    """

    multiplies: int = 0
    gate_calls: int = 0
    by_op: Counter = field(default_factory=Counter)

    def mul(self, n: int) -> None:
        """Record ``n`` scalar multiplies (called by the gates' backward closures)."""
        self.multiplies += int(n)


def _topological_order(root: Value) -> list[Value]:
    """Every node that requires grad and leads to ``root``, parents before children.

    An iterative depth-first search (a deep graph needs no recursion limit).
    """
    order: list[Value] = []
    seen: set[int] = set()
    stack: list[tuple[Value, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend(
            (p, False) for p in node._parents if p.requires_grad and id(p) not in seen
        )
    return order


def _run_backward(root, gradient, targets, retain_graph, counter):
    """The pass shared by ``Value.backward`` and ``grad``: returns {id(node): grad}, order.

    ``targets`` (ids) restricts the pass to nodes with a path to one of them.
    """
    order = _topological_order(root)
    if any(node._parents and node._backward is None for node in order):
        raise RuntimeError(
            "backward through the graph a second time: the graph was freed by the first "
            "backward() (its saved tensors are gone). Pass retain_graph=True to the first "
            "backward() to call it again, or rebuild the expression."
        )
    leads = {id(n): targets is None or id(n) in targets for n in order}
    for node in order:  # parents first
        leads[id(node)] = leads[id(node)] or any(
            leads.get(id(p), False) for p in node._parents
        )
    grads: dict[int, Tensor] = {id(root): gradient}
    for node in reversed(order):
        g = grads.get(id(node))
        need = tuple(p.requires_grad and leads.get(id(p), False) for p in node._parents)
        if g is None or not any(need):
            continue
        before = counter.multiplies
        downstream = node._backward(g, need, counter)  # upstream × local, once per node
        counter.gate_calls += 1
        counter.by_op[node.op] += counter.multiplies - before
        for parent, pg in zip(node._parents, downstream):
            if pg is not None:  # fan-out: gradients from several consumers add
                grads[id(parent)] = (
                    grads[id(parent)] + pg if id(parent) in grads else pg
                )
    if not retain_graph:
        for node in order:
            node._backward = None
    return grads, order


def grad(
    output: Value,
    inputs: Sequence[Value],
    *,
    retain_graph: bool = False,
    counter: OpCounter | None = None,
) -> list[Tensor]:
    """∂output/∂input for each input, from a pass that visits only the paths to ``inputs``.

    Like ``torch.autograd.grad``: ``.grad`` fields are left alone. ``output`` must be a scalar;
    an input with no path to it is a ``ValueError``.
    """
    if output.data.numel() != 1:
        raise RuntimeError(f"grad() needs a scalar output; got shape {output.shape}")
    targets = {id(v) for v in inputs}
    counter = OpCounter() if counter is None else counter
    grads, _ = _run_backward(
        output, torch.ones_like(output.data), targets, retain_graph, counter
    )
    missing = [
        v.name or f"inputs[{i}]" for i, v in enumerate(inputs) if id(v) not in grads
    ]
    if missing:
        raise ValueError(
            f"{', '.join(missing)} has no path to the output: it was not used to compute "
            "it (or does not require grad), so its gradient is undefined"
        )
    return [grads[id(v)] for v in inputs]


def grad_of(param: Value) -> Tensor:
    """``param.grad``, or a clear error when backward() never reached it."""
    if param.grad is None:
        label = repr(param.name) if param.name else repr(param)
        raise RuntimeError(
            f"{label} has no gradient: no path leads from it to the output whose "
            "backward() ran (is it used in the loss? does it have requires_grad=True?), "
            "or backward() has not been called yet"
        )
    return param.grad


def zero_grad(params: Sequence[Value]) -> None:
    """Forget the accumulated gradients (``grad = None``) before the next backward()."""
    for p in params:
        p.grad = None
