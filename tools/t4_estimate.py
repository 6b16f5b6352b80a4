"""A chapter's gpu profile on a Colab T4, estimated from what its gpu check counted.

A gpu check runs the gpu profile's models for a handful of optimizer steps. For each cell that
trained, it counted the steps, and the FLOPs and operators those steps dispatched (forward,
backward, update, and any evaluation between steps); the chapter's plan
(``tools/gpu_plans/chNN.py``) gives the steps the same cell takes in the gpu profile, computed
from the chapter's own configuration, and is first checked against the check: with the check's
configuration it must give the steps the check took. A cell's planned time on a T4 is then

    planned steps x (FLOPs per step / T4_FLOPS + operators per step x T4_OP_SECONDS)

where a step's work is the median interval from one step of the cell's optimizer to its next
(a cell with several optimizers, several loops, has a plan for each).

The cells' other work (data preparation, evaluation after training, counting, a tokenizer's
merges) is split in two: its Python (and NumPy) time, which stays on the CPU, and its torch
operators, which go to the T4, at the same cost per FLOP and per operator as a step's; a cell
whose work the check shrinks is scaled by the plan's units of work, the gpu profile's over the
check's. Any other is taken at the check's slice of the data, so the total is a lower bound.
"""

from __future__ import annotations

import importlib
import statistics
from dataclasses import dataclass, field

# The assumptions, stated where the report prints them.
# float32, NVIDIA's T4 datasheet (no bf16 arithmetic: see pretraining.uses_bf16)
T4_PEAK_FLOPS = 8.1e12
T4_FLOPS = T4_PEAK_FLOPS / 2  # sustained: half of peak
T4_OP_SECONDS = 10e-6  # eager PyTorch: launch and dispatch of one operator (one kernel)
# the check's peak is its kernel's resident memory on the CPU: the gpu sizes' parameters,
# optimizer state and one step's activations, and the data, a bound on what the GPU holds
T4_MEMORY_MB = 16 * 1000  # 16 GB
BUDGET_SECONDS = 600  # ../shared/DESIGN.md: the gpu profile, 10 minutes a chapter
ASSUMPTION = (
    f"T4: {T4_FLOPS / 1e12:.2f} TFLOP/s sustained (half the {T4_PEAK_FLOPS / 1e12:.1f} TFLOP/s "
    f"float32 peak) and {T4_OP_SECONDS * 1e6:.0f} us per operator dispatched; a step's work "
    "as counted here at the gpu sizes, times the planned steps; other work's Python as long "
    "as in the check, scaled by the plan's units where it has them (a lower bound)"
)


@dataclass
class Estimate:
    """A chapter's gpu profile on a T4: training (planned steps) and the other work."""

    planned_steps: int = 0
    planned_flops: float = 0.0
    training_seconds: float = 0.0
    other_seconds: float = 0.0
    # where the plan does not match the check
    problems: list[str] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return self.training_seconds + self.other_seconds


def step_seconds(flops: float, ops: float) -> float:
    """One step's time on a T4, from its FLOPs and its operators."""
    return flops / T4_FLOPS + ops * T4_OP_SECONDS


PLANS = "gpu_plans"  # the package of plans, chNN.py each (tools/gpu_plans/__init__.py)


def plan_for(chapter: str, cfg: dict) -> tuple[dict[str, int], dict[str, float]]:
    """The chapter's plan under ``cfg``: optimizer steps by training cell, and the CPU cells'
    units of work."""
    module = importlib.import_module(f"{PLANS}.ch{chapter[:2]}")
    work = getattr(module, "work", lambda cfg: {})
    return module.steps(cfg), work(cfg)


# what the check counts, for a cell and for each interval between steps (gpu_counting.py)
KEYS = ("seconds", "flops", "ops", "op_seconds")


def _per_step(loop: dict) -> list[float] | None:
    """One step's work in a loop: the median of its intervals, key by key (an evaluation
    every few steps, which the check runs far more often than the gpu profile, is left out)."""
    if not loop["intervals"]:
        return None
    return [
        statistics.median(i[k] for i in loop["intervals"]) for k in range(len(KEYS))
    ]


def _pairs(cell_id: str, counts: dict, planned, checked) -> tuple[list, list[str]]:
    """(planned steps, the check's loop) for each loop of a cell, and what does not match.
    A plan gives a cell's steps in all, or a list, one for each optimizer in the order they
    first step (a cell whose loops differ in cost: pretraining, then fine-tuning)."""
    loops, took = counts["loops"], counts["steps"]
    if took and planned is None:
        return [], [f"cell {cell_id} took {took} steps and has no plan"]
    if not took:
        return [], []
    if isinstance(planned, list):
        if [loop["steps"] for loop in loops] != checked:
            return [], [
                f"cell {cell_id}: the plan gives {checked} steps for the check, "
                f"its loops took {[loop['steps'] for loop in loops]}"
            ]
        pairs = list(zip(planned, loops))
    else:
        if checked != took:
            return [], [
                f"cell {cell_id}: the plan gives {checked} steps for the check, "
                f"it took {took}"
            ]
        merged = {
            "steps": took,
            "intervals": [i for lp in loops for i in lp["intervals"]],
        }
        pairs = [(planned, merged)]
    problems = [
        f"cell {cell_id} took one step in the check: a step's work cannot be told from "
        "the rest of the cell; give it two"
        for steps, loop in pairs
        if steps > 1 and not loop["intervals"]
    ]
    return pairs, problems


def estimate(chapter: str, cells: dict[str, dict], picks: list) -> Estimate:
    """``cells``: the check's counts by cell id; ``picks``: the chapter's checked picks,
    (gpu profile's choice, the check's)."""
    out = Estimate()
    trains = any(c["steps"] for c in cells.values())
    if len(picks) > 1 or (trains and not picks):
        out.problems.append(
            f"{len(picks)} picks with a gpu_check; a plan reads the chapter's one"
        )
        return out
    planned = planned_work = checked = checked_work = {}  # no pick: nothing trains
    if picks:
        gpu_cfg, check_cfg = picks[0]
        try:
            planned, planned_work = plan_for(chapter, gpu_cfg)
            checked, checked_work = plan_for(chapter, check_cfg)
        except ModuleNotFoundError as err:
            out.problems.append(f"no plan: {err}")
            return out
    for cell_id in (planned.keys() | planned_work.keys()) - cells.keys():
        out.problems.append(
            f"the plan names cell {cell_id}, which the chapter does not run"
        )
    for cell_id, counts in cells.items():
        pairs, problems = _pairs(
            cell_id, counts, planned.get(cell_id), checked.get(cell_id)
        )
        out.problems += problems
        other = [counts[key] for key in KEYS]
        for steps, loop in pairs:
            per_step = _per_step(loop)
            if per_step is None:  # one step in the check and the plan: the cell's work
                continue
            other = [max(0.0, o - loop["steps"] * p) for o, p in zip(other, per_step)]
            out.planned_steps += steps
            out.planned_flops += steps * per_step[1]
            out.training_seconds += steps * step_seconds(per_step[1], per_step[2])
        seconds, flops, ops, op_seconds = other
        # the other work's Python (and NumPy) stays on the CPU; its operators go to the T4,
        # where each costs at least its dispatch, which Python's time already holds
        python = max(0.0, seconds - op_seconds)
        on_t4 = max(python, ops * T4_OP_SECONDS) + flops / T4_FLOPS
        scale = (  # a CPU cell's work in the gpu profile over its work in the check
            planned_work[cell_id] / checked_work[cell_id]
            if checked_work.get(cell_id)
            else 1.0
        )
        out.other_seconds += scale * on_t4
    return out
