r"""Backpropagation (Chapter 3): gradients by hand, a micro autograd engine, and where they go.

``matrix_calculus`` (CS224N lecture 3: Jacobians and the gradients of a layer, by hand),
``gradient_flow`` (how the gradient reaching each layer of a deep network shrinks or grows),
``window_classifier`` (the lecture's named-entity window classifier, trained with it), and the
micro reverse-mode autograd engine over tensors below.

CS224N lecture 3 ("Backprop and neural networks"): forward propagation computes the graph's nodes;
back-propagation visits them once, in reverse topological order, and at each gate multiplies the
*upstream gradient* by the gate's *local gradient* to get the *downstream gradients*:

    downstream = upstream × local                                                  (lecture 3)

Where a node feeds several others (fan-out) the gradients arriving from them add. Like micrograd
(Karpathy), but each ``Value`` holds a torch tensor and torch is used only as an array library:
torch's own autograd is never involved (tensors are detached, none requires grad).

The engine, one concept per module: ``value`` (the graph's nodes and their gates), ``engine`` (the
backward pass, ``grad``), ``gates`` (a fused softmax cross-entropy, the lecture's standalone
multiply gate) and ``checks`` (numerical gradient checks, the cost of one shared pass).

Shape legend: B batch, C classes, V vocabulary, D width; broadcasting follows torch.
"""

from course_lib.backprop.checks import (
    BackwardCost,
    gradient_check,
    gradient_check_precision,
    separate_vs_shared_cost,
)
from course_lib.backprop.engine import OpCounter, grad, grad_of, zero_grad
from course_lib.backprop.gates import MultiplyGate, softmax_cross_entropy
from course_lib.backprop.value import Value

__all__ = [
    "BackwardCost",
    "MultiplyGate",
    "OpCounter",
    "Value",
    "gradient_check",
    "gradient_check_precision",
    "grad",
    "grad_of",
    "separate_vs_shared_cost",
    "softmax_cross_entropy",
    "zero_grad",
]
