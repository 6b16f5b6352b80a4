"""A chapter's gpu profile on a Colab T4, estimated from what its gpu check counted.

Each run of a training loop in the check (``course_lib.step_plan``) plans its steps and takes
the first few; tools/gpu_counting.py counts each interval between two of them. On a T4 a run
takes ``planned steps x (FLOPs / T4_FLOPS + operators x T4_OP_SECONDS)`` of the mean step (a
sum of steps is their number times their mean; batches grouped by length vary), and
a loop without a torch optimizer (SGNS, GloVe, the scalar engine) its Python time too. The rest
of the check (data, evaluation) is other work as it ran: its Python time stays on the CPU, its
operators go to the T4 (a lower bound where the chapter's ``gpu_check`` cuts it).
"""

import statistics
from dataclasses import dataclass, field

# float32, NVIDIA's T4 datasheet (no bf16 arithmetic: see pretraining.uses_bf16)
T4_PEAK_FLOPS = 8.1e12
T4_FLOPS = T4_PEAK_FLOPS / 2  # sustained: half of peak
T4_OP_SECONDS = 10e-6  # eager PyTorch: launch and dispatch of one operator (one kernel)
# the check's peak is its kernel's resident memory on the CPU (parameters, optimizer state,
# a step's activations, the data): a bound on what the GPU holds
T4_MEMORY_MB = 16 * 1000  # 16 GB
BUDGET_SECONDS = 600  # ../shared/DESIGN.md: the gpu profile, 10 minutes a chapter
ASSUMPTION = (
    f"T4: {T4_FLOPS / 1e12:.2f} TFLOP/s (half the float32 peak), {T4_OP_SECONDS * 1e6:.0f} us "
    "an operator; a step's work times the steps planned; other work as in the check"
)
# what the check counts, for the whole chapter and for each interval between two steps
KEYS = ("seconds", "flops", "ops", "op_seconds")


@dataclass
class Estimate:
    """A chapter's gpu profile on a T4: its loops' planned steps and the other work."""

    planned_steps: int = 0
    planned_flops: float = 0.0
    training_seconds: float = 0.0
    other_seconds: float = 0.0
    problems: list[str] = field(default_factory=list)  # a run without a usable plan

    @property
    def seconds(self) -> float:
        return self.training_seconds + self.other_seconds


def on_t4(seconds: float, flops: float, ops: float, op_seconds: float, python=True):
    """Work counted on the CPU, on a T4: its FLOPs, and its operators or (``python``) its time
    outside operators, which stays on the CPU and holds their dispatch, whichever is longer."""
    busy = max(seconds - op_seconds, 0.0) if python else 0.0
    return max(busy, ops * T4_OP_SECONDS) + flops / T4_FLOPS


def estimate(stats: dict) -> Estimate:
    """The estimate from ``stats``, gpu_counting.Counter.report's: ``totals`` (``KEYS``) and
    ``runs`` (loop, planned and taken steps, ``optimizer``, ``intervals`` of ``KEYS``)."""
    out, other = Estimate(), [stats["totals"][key] for key in KEYS]
    for i, run in enumerate(stats["runs"]):
        planned, taken = run["planned"], run["taken"]
        name = f"run {i + 1} ({run['loop']})"
        if planned is None:
            out.problems.append(f"{name} took {taken} steps and gave no plan")
            continue
        if taken > planned:
            out.problems.append(f"{name} planned {planned} steps and took {taken}")
        if not run["intervals"]:  # a single step: its work stays other work
            if planned > taken:
                out.problems.append(f"{name} took {taken} step of {planned}: too few")
            continue
        step = [statistics.fmean(iv[k] for iv in run["intervals"]) for k in range(4)]
        other = [max(0.0, o - taken * s) for o, s in zip(other, step)]
        out.planned_steps += planned
        out.planned_flops += planned * step[1]
        out.training_seconds += planned * on_t4(*step, python=not run["optimizer"])
    out.other_seconds = on_t4(*other)
    return out
