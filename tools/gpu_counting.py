"""What a gpu check (tools/gpu_check.py) counts in a chapter's kernel: the wall time, the FLOPs
and operators dispatched and the time inside them, for the whole chapter and for each interval
between two steps of a training loop's run (``course_lib.step_plan``): a step's work.
"""

import contextlib
import functools
import json
import math
import os
import resource
import time

import torch
from t4_estimate import KEYS  # tools/, beside this file
from torch import nn
from torch._C._autograd import _get_sequence_nr as next_node_number  # nodes count up
from torch.nn.modules import module as hooks
from torch.optim.optimizer import register_optimizer_step_post_hook
from torch.utils import flop_counter

from course_lib import step_plan


@functools.cache
def launches_a_kernel(func_packet) -> bool:
    """An operator that computes (a view, ``t`` or ``detach``, only relabels memory)."""
    overloads = [getattr(func_packet, name) for name in func_packet.overloads()]
    return not all(getattr(op, "is_view", False) for op in overloads)


@flop_counter.register_flop_formula(torch.ops.aten.mkldnn_rnn_layer)
def _lstm_layer_flops(x_shape, w_ih_shape, w_hh_shape, *args, **kwargs) -> int:
    """The CPU's fused LSTM layer (one direction): at each of its T·B positions the gates'
    products W_ih x (4H × I) and W_hh h (4H × H), 2 FLOPs a multiply-add; torch counts none."""
    return 2 * math.prod(x_shape[:-1]) * (math.prod(w_ih_shape) + math.prod(w_hh_shape))


@flop_counter.register_flop_formula(torch.ops.aten.mkldnn_rnn_layer_backward)
def _lstm_backward_flops(x_shape, w_ih_shape, w_hh_shape, *args, **kwargs) -> int:
    """Its backward: the gradients of the inputs and of the weights, twice the forward."""
    return 2 * _lstm_layer_flops(x_shape, w_ih_shape, w_hh_shape)


class _TimedMode(flop_counter._FlopCounterMode):
    """FlopCounterMode's dispatch mode, also timing the outermost operators it runs."""

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


def peak_mb() -> float:
    """This process's peak resident memory, MB: Linux's VmHWM, which a new program starts
    afresh (``ru_maxrss``, elsewhere, keeps the peak of the process that started it)."""
    if os.path.exists("/proc/self/status"):
        with open("/proc/self/status", encoding="ascii") as status:
            kb = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
        return int(kb) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Counter(flop_counter.FlopCounterMode):
    """The FLOPs (as torch counts them), operators that compute (a GPU kernel each; not views)
    and seconds inside them: in all, and between two steps of each run of a training loop."""

    def __init__(self) -> None:
        super().__init__(display=False)
        # a module tracker that tracks nothing (FlopCounterMode's own hooks break
        # ``torch.autograd.grad`` through a module): every FLOP counts under "Global"
        self.mod_tracker = contextlib.nullcontext()
        self.mod_tracker.parents = {"Global"}
        self.ops, self.op_seconds = 0, 0.0
        self.in_rnn = 0  # inside a recurrent layer's forward
        # the sequence numbers of its autograd nodes, whose backward is cuDNN's
        self.rnn_nodes: set[int] = set()
        self.runs: dict[int, dict] = {}  # id(run): intervals, optimizer
        self.marks: dict[int, list] = {}  # id(run): the counts at its last step
        self.stepped = False  # a torch optimizer stepped since a run's last step

    def __enter__(self):
        super().__enter__()
        self.mode.__exit__(None, None, None)  # FlopCounterMode's own mode, swapped for
        self.mode = _TimedMode(self)  # one that times the operators
        self.mode.__enter__()
        return self

    def _count_flops(self, func_packet, out, args, kwargs):
        if launches_a_kernel(func_packet) and not self.in_rnn:
            node = torch._C._current_autograd_node()  # in a backward, the node it runs
            if node is None or node._sequence_nr() not in self.rnn_nodes:
                self.ops += 1
        return super()._count_flops(func_packet, out, args, kwargs)

    def rnn_enters(self, module, args) -> None:
        """A recurrent layer, which cuDNN runs as a call a layer and direction (the CPU, a time
        step at a time): its FLOPs count as they run, its operators as cuDNN's calls."""
        if isinstance(module, nn.RNNBase):
            self.in_rnn += 1
            self._first = next_node_number()

    def rnn_leaves(self, module, args, outputs) -> None:
        if isinstance(module, nn.RNNBase):
            self.in_rnn -= 1
            nodes = range(self._first, next_node_number())  # the autograd nodes it made
            self.rnn_nodes.update(nodes)
            calls = module.num_layers * (2 if module.bidirectional else 1)
            # a call forward, and one backward if it will run
            self.ops += calls * (2 if nodes else 1)

    def now(self) -> list[float]:
        """The counts so far (``KEYS``)."""
        return [time.perf_counter(), self.get_total_flops(), self.ops, self.op_seconds]

    def optimizer_step(self, *_args) -> None:
        self.rnn_nodes.clear()  # their backward has run
        self.stepped = True

    def run_step(self, run) -> None:
        """A run took a step: what ran since its previous step is one step's work."""
        now, key = self.now(), id(run)
        seen = self.runs.setdefault(key, dict(intervals=[], optimizer=False))
        if key in self.marks:
            seen["intervals"].append([b - a for a, b in zip(self.marks[key], now)])
        self.marks[key], seen["optimizer"] = now, seen["optimizer"] or self.stepped
        self.stepped = False

    def start(self) -> None:
        """Count from here on (in a kernel: its first cell)."""
        step_plan.LISTENERS.append(self.run_step)
        register_optimizer_step_post_hook(self.optimizer_step)
        hooks.register_module_forward_pre_hook(self.rnn_enters)
        hooks.register_module_forward_hook(self.rnn_leaves)
        self.first = self.now()
        self.__enter__()

    def report(self) -> str:
        """Stop counting; one line for tools/gpu_check.py: the totals and every run."""
        self.__exit__(None, None, None)
        totals = [b - a for a, b in zip(self.first, self.now())]
        none = dict(intervals=[], optimizer=False)
        # each run: its loop, planned and taken steps, and what was counted between them
        runs = [dict(vars(r), **self.runs.get(id(r), none)) for r in step_plan.RUNS]
        stats = {"totals": dict(zip(KEYS, totals)), "peak_mb": peak_mb(), "runs": runs}
        return "GPU-CHECK " + json.dumps(stats)
