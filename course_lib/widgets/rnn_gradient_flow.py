r"""The gradient-flow explorer of Chapter 6: ‖∂L/∂h_t‖ for every step t of an RNN, LSTM, GRU.

CS224N lecture 6: the gradient of a loss at the last step reaches step t through T − t
Jacobians, so it vanishes (or explodes) with distance in a vanilla RNN, while the gated cells'
additive paths keep it. ``rnn_gradient_flow_explorer`` precomputes, for every cell × sequence
length × initialisation (and, when given, the models trained on the long-range task of
``course_lib.rnn.long_range``), the gradients of ``course_lib.rnn.gradient_through_time`` and
hands them to the Chapter 3 family, :class:`~course_lib.widgets.gradient_flow.GradientFlowExplorer`
(same JS, same static figure).

Shape legend: B batch, T time, H hidden width.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from course_lib.backprop.gradient_flow import gradient_stats
from course_lib.rnn.gradient_through_time import (
    random_rnn_gradients,
    trained_rnn_gradients,
)
from course_lib.rnn.long_range import LongRangeClassifier
from course_lib.runtime import one_thread
from course_lib.widgets.gradient_flow import GradientFlowExplorer

__all__ = ["CELL_LABELS", "RNN_INITS", "rnn_gradient_flow_explorer"]

CELL_LABELS = {"rnn": "RNN", "lstm": "LSTM", "gru": "GRU", "simple_gru": "simple GRU"}
# label -> (scale of W_h ~ N(0, s²/H), bias added to the gate that keeps the old state)
RNN_INITS = {
    "W_h s=0.5": (0.5, 0.0),
    "W_h s=1": (1.0, 0.0),
    "W_h s=2": (2.0, 0.0),
    "s=1, keep-gate bias 3": (1.0, 3.0),
}
TRAINED = "trained on the task"


def rnn_gradient_flow_explorer(
    cells: Sequence[str] = ("rnn", "lstm", "gru"),
    lengths: Sequence[int] = (10, 25, 50, 100),
    inits: Mapping[str, tuple[float, float]] | None = None,
    *,
    trained: Mapping[str, LongRangeClassifier] | None = None,
    hidden: int = 32,
    batch: int = 16,
    seed: int = 0,
    device: Any = None,
    selection: Mapping[str, Any] | None = None,
    decimals: int = 2,
) -> GradientFlowExplorer:
    """Every cell × length × initialisation of ``random_rnn_gradients`` (float64), plus
    ``trained_rnn_gradients`` for the cells in ``trained`` (option ``"trained on the task"``).

    inits: ``{label: (scale, gate_bias)}``, default ``RNN_INITS``. trained: ``{cell: model}``
    for every cell in ``cells``, or None. The static figure puts RNN, LSTM and GRU side by side
    at the longest length, trained when models are given (else W_h s=1).
    """
    inits = dict(RNN_INITS if inits is None else inits)
    if trained is not None and set(trained) != set(cells):
        raise ValueError(
            f"trained needs one model per cell {list(cells)}; got {sorted(trained)}"
        )
    options = list(inits) + ([TRAINED] if trained is not None else [])
    labels = [CELL_LABELS.get(c, c) for c in cells]
    states = {}
    with one_thread():
        for kind, label in zip(cells, labels):
            for T in lengths:
                for init in options:
                    if init == TRAINED:
                        grads = trained_rnn_gradients(
                            trained[kind], T, batch=batch, seed=seed, device=device
                        )
                    else:
                        scale, bias = inits[init]
                        grads = random_rnn_gradients(
                            kind,
                            T,
                            scale,
                            bias,
                            hidden=hidden,
                            batch=batch,
                            seed=seed,
                            device=device,
                        )
                    states[(label, T, init)] = gradient_stats(grads)
    start = {
        "length": max(lengths),
        "init": TRAINED if trained is not None else options[min(1, len(options) - 1)],
    }
    return GradientFlowExplorer(
        states,
        {"cell": labels, "length": list(lengths), "init": options},
        selection={**start, **(selection or {})},
        title="Gradient of a loss at the last step reaching each step t (∂L/∂h_t)",
        x_label="time step t",
        value_label="∂L/∂h_t",
        figure_panels=[{**start, "cell": label} for label in labels],
        shared_axis=False,  # each setting on its own decades (a checkbox shares them)
        decimals=decimals,
    )
