"""What a gpu check counts inside the chapter's kernel, cell by cell (tools/gpu_check.py loads it).

For every cell: its wall time, the optimizer steps it took (``register_optimizer_step_post_hook``),
the floating-point operations and the operators it dispatched (``torch.utils.flop_counter``), and
how much of each fell between one step of an optimizer and its next: a training step's forward,
backward and update. A cell's other work (data preparation, evaluation) is the rest.
"""

from __future__ import annotations

import functools
import json
import math
import resource
import time

import torch
from t4_estimate import KEYS  # tools/, beside this file
from torch import nn
from torch.nn.modules.module import (
    register_module_forward_hook,
    register_module_forward_pre_hook,
)
from torch.optim.optimizer import register_optimizer_step_post_hook
from torch.utils.flop_counter import (
    FlopCounterMode,
    _FlopCounterMode,
    register_flop_formula,
)


class _GlobalOnly:
    """FlopCounterMode's module tracker, tracking nothing: every FLOP counts under "Global".
    The tracker's module hooks break ``torch.autograd.grad`` through a module."""

    parents = {"Global"}

    def __enter__(self):
        return self

    def __exit__(self, *args):
        return None


@functools.cache
def launches_a_kernel(func_packet) -> bool:
    """An operator that computes (a view, ``t`` or ``detach``, only relabels memory)."""
    overloads = [getattr(func_packet, name) for name in func_packet.overloads()]
    return not all(getattr(op, "is_view", False) for op in overloads)


@register_flop_formula(torch.ops.aten.mkldnn_rnn_layer)
def _lstm_layer_flops(input_shape, w_ih_shape, w_hh_shape, *args, **kwargs) -> int:
    """The CPU's fused LSTM layer (one direction): at each of its T·B positions the gates'
    products W_ih x (4H × I) and W_hh h (4H × H), 2 FLOPs a multiply-add; torch counts none."""
    return (
        2
        * math.prod(input_shape[:-1])
        * (math.prod(w_ih_shape) + math.prod(w_hh_shape))
    )


@register_flop_formula(torch.ops.aten.mkldnn_rnn_layer_backward)
def _lstm_layer_backward_flops(
    input_shape, w_ih_shape, w_hh_shape, *args, **kwargs
) -> int:
    """Its backward: the gradients of the inputs and of the weights, twice the forward."""
    return 2 * _lstm_layer_flops(input_shape, w_ih_shape, w_hh_shape)


def _sequence_nr() -> int:
    """The sequence number the next autograd node will have (nodes are numbered in order)."""
    with torch.enable_grad():
        return torch.ones(1, requires_grad=True).mul(1).grad_fn._sequence_nr() + 1


def _nodes_after(outputs, first: int) -> set[int]:
    """Sequence numbers of the autograd nodes behind ``outputs`` made since number ``first``."""
    tensors = [t for t in _tensors(outputs) if t.grad_fn is not None]
    todo, seen = [t.grad_fn for t in tensors], set()
    while todo:
        node = todo.pop()
        if node is None or type(node).__name__ == "AccumulateGrad":
            continue
        number = node._sequence_nr()
        if number < first or number in seen:
            continue
        seen.add(number)
        todo.extend(next_node for next_node, _ in node.next_functions)
    return seen


def _tensors(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (tuple, list)):  # a PackedSequence is a tuple too
        for item in value:
            yield from _tensors(item)


class _TimedMode(_FlopCounterMode):
    """FlopCounterMode's dispatch mode, also timing the operators it runs (the outermost:
    an operator torch decomposes runs its parts inside it)."""

    depth = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if self.depth:
            return super().__torch_dispatch__(func, types, args, kwargs)
        self.depth, start = 1, time.perf_counter()
        try:
            return super().__torch_dispatch__(func, types, args, kwargs)
        finally:
            self.depth = 0
            self.counter.op_seconds += time.perf_counter() - start


class OpCounter(FlopCounterMode):
    """FLOPs, as torch counts them, the operators dispatched that compute (each about one GPU
    kernel; views are not counted), and the seconds spent inside operators."""

    def __init__(self) -> None:
        super().__init__(display=False)
        self.mod_tracker = _GlobalOnly()
        self.ops = 0
        self.op_seconds = 0.0
        self.in_rnn = 0  # inside a recurrent layer's forward
        self.rnn_nodes: set[int] = set()  # its autograd nodes, run backward by cuDNN

    def __enter__(self):
        super().__enter__()
        self.mode.__exit__(None, None, None)  # FlopCounterMode's own mode, swapped for
        self.mode = _TimedMode(self)  # one that times the operators
        self.mode.__enter__()
        return self

    def _count_flops(self, func_packet, out, args, kwargs):
        if launches_a_kernel(func_packet) and not self.in_rnn:
            node = torch._C._current_autograd_node()
            if node is None or node._sequence_nr() not in self.rnn_nodes:
                self.ops += 1
        return super()._count_flops(func_packet, out, args, kwargs)

    def rnn_enters(self, module, args) -> None:
        """A recurrent layer: on the CPU torch runs it a time step at a time, operator by
        operator (GRU, vanilla RNN, packed sequences); on a GPU cuDNN runs each layer and
        direction as one call. Its FLOPs count as they run; its operators as cuDNN's."""
        if isinstance(module, nn.RNNBase):
            self.in_rnn += 1
            self._first = _sequence_nr()

    def rnn_leaves(self, module, args, outputs) -> None:
        if isinstance(module, nn.RNNBase):
            self.in_rnn -= 1
            nodes = _nodes_after(outputs, self._first)
            self.rnn_nodes |= nodes
            calls = module.num_layers * (2 if module.bidirectional else 1)
            # a call forward, and one backward if it will run
            self.ops += calls * (2 if nodes else 1)

    def totals(self) -> tuple[int, int, float]:
        return int(self.get_total_flops()), self.ops, self.op_seconds


def peak_mb() -> float:
    """This process's peak resident memory, MB: Linux's VmHWM, which a new program starts
    afresh (``ru_maxrss``, elsewhere, keeps the peak of the process that started it)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class CellCounter:
    """Per-cell counts: ``cells`` holds, for each cell the kernel ran after this one (in order),
    its optimizer steps, seconds, FLOPs, operators and seconds inside operators (``KEYS``),
    and its ``loops``: for each optimizer that stepped in it, in the order they first did, the
    steps it took and each interval from one of its steps to its next, as ``KEYS``."""

    def __init__(self) -> None:
        self.counter = OpCounter()
        self.cells: list[dict] = []
        self.cell: dict | None = None
        self.steps = 0

    def _now(self) -> tuple[float, int, int, float]:
        return (time.perf_counter(), *self.counter.totals())

    def pre_run_cell(self, info) -> None:
        self.cell = {"steps": 0, **dict.fromkeys(KEYS, 0), "loops": []}
        self.cells.append(self.cell)
        self._start = self._mark = self._now()
        # id(optimizer) -> (the optimizer, its loop in this cell); holding the optimizer
        # keeps its id its own
        self._loops: dict[int, tuple] = {}
        self._last = None  # the optimizer that took the cell's last step

    def post_run_cell(self, result) -> None:
        if self.cell is None:
            return
        now = self._now()
        for i, key in enumerate(KEYS):
            self.cell[key] += now[i] - self._start[i]
        self.cell = None

    def step(self, optimizer, *_args) -> None:
        """An optimizer took a step. What ran since the same optimizer's last step in this cell
        is one step's work (forward, backward, update, and any evaluation between steps); what
        ran before its first step (making the model, the batches) is not."""
        self.steps += 1
        self.counter.rnn_nodes.clear()  # their backward has run
        if self.cell is None:
            return
        now = self._now()
        self.cell["steps"] += 1
        if id(optimizer) not in self._loops:
            self._loops[id(optimizer)] = (optimizer, {"steps": 0, "intervals": []})
            self.cell["loops"].append(self._loops[id(optimizer)][1])
        loop = self._loops[id(optimizer)][1]
        loop["steps"] += 1
        if self._last is optimizer:
            loop["intervals"].append([b - a for a, b in zip(self._mark, now)])
        self._last, self._mark = optimizer, now

    def start(self, ipython) -> None:
        register_optimizer_step_post_hook(self.step)
        register_module_forward_pre_hook(self.counter.rnn_enters)
        register_module_forward_hook(self.counter.rnn_leaves)
        ipython.events.register("pre_run_cell", self.pre_run_cell)
        ipython.events.register("post_run_cell", self.post_run_cell)
        self.counter.__enter__()

    def report(self) -> str:
        """One line for tools/gpu_check.py: the totals, each cell, and the checked picks."""
        from course_lib.runtime import CHECKED_PICKS

        self.counter.__exit__(None, None, None)
        flops, ops, _ = self.counter.totals()
        return "GPU-CHECK " + json.dumps(
            {
                "steps": self.steps,
                "flops": flops,
                "ops": ops,
                "peak_mb": peak_mb(),
                "cells": self.cells,
                "picks": CHECKED_PICKS,
            },
            default=str,
        )
