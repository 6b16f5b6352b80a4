"""Every chapter with the gpu profile's sizes and code paths, a few steps a loop, on the CPU.

    python tools/gpu_check.py [NN ...] [--jobs 2]   # make gpu-check runs them all, 2 at a time

No machine that builds the book has a GPU. A gpu check runs each chapter with
``COURSE_PROFILE=gpu COURSE_GPU_CHECK=1``: the models have their gpu sizes and the code its gpu
paths (bf16 autocast where the device has it, fused attention, DDP with 2 gloo processes), but
every training loop takes only the first steps of its run, having planned the whole run
(``course_lib.step_plan``), and each ``pick`` lays the chapter's ``gpu_check`` changes over the
gpu values (less evaluation and decoding). An error in the gpu sizes fails the check; a failed
``assert`` of a chapter's cell is a claim about results a few steps cannot bear out: listed.
It prints per chapter the time, the steps taken and planned, the FLOPs counted, the kernel's
peak memory against a T4's 16 GB and the gpu profile's time on a Colab T4 against its 10
minutes (tools/t4_estimate.py); a run with no plan, or more steps than planned, fails it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import notebook_run  # tools/, beside this file
import t4_estimate

ROOT = Path(__file__).resolve().parents[1]
# What a gpu check records (a few steps' numbers) goes here, never into ``_build/results``,
# which the Results page reads beside the chapters the book executed.
RESULTS = ROOT / "_build" / "gpu_check" / "results"

# Injected before a chapter's first cell and after its last: count what the run does
# (tools/gpu_counting.py).
START = f"""\
import sys as _gc_sys
_gc_sys.path.insert(0, {str(ROOT / "tools")!r})
from gpu_counting import Counter as _GcCounter
_gc = _GcCounter()
_gc.start()
"""
END = "print(_gc.report())"


@dataclass
class Outcome:
    """What one chapter's gpu check did."""

    chapter: str
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)  # a failure: code that cannot run
    skipped_checks: list[str] = field(default_factory=list)  # asserts on results
    stats: dict = field(default_factory=dict)
    slowest: list[tuple[int, float]] = field(default_factory=list)  # (cell, seconds)
    estimate: t4_estimate.Estimate | None = None  # the gpu profile on a T4

    @property
    def passed(self) -> bool:
        """It ran, and every run of a loop gave a plan it kept to."""
        e = self.estimate
        return not self.errors and e is not None and not e.problems


def _slowest_cells(cells: list, n: int = 3) -> list[tuple[int, float]]:
    """The ``n`` cells that took longest (index in the chapter, seconds), from the execution
    times nbclient records in each cell's metadata."""
    from datetime import datetime

    def at(ran: dict, key: str) -> datetime:
        return datetime.fromisoformat(ran[key].replace("Z", "+00:00"))

    times = []
    for index, cell in enumerate(cells):
        ran = cell.get("metadata", {}).get("execution", {})
        if {"iopub.execute_input", "shell.execute_reply"} <= ran.keys():
            took = at(ran, "shell.execute_reply") - at(ran, "iopub.execute_input")
            times.append((index, round(took.total_seconds(), 1)))
    return sorted(times, key=lambda t: -t[1])[:n]


def run(path: Path, timeout: int = 1800) -> Outcome:
    """Execute one chapter in a gpu check and classify what went wrong."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(START))
    nb.cells.append(nbformat.v4.new_code_cell(END))
    env = {
        "COURSE_PROFILE": "gpu",
        "COURSE_GPU_CHECK": "1",
        "COURSE_WIDGET_MODE": "html",
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
        "COURSE_RESULTS_DIR": str(RESULTS),
    }
    outcome = Outcome(path.stem)
    outcome.seconds, stopped = notebook_run.execute(nb, path, env, timeout)
    if stopped:
        outcome.errors.append(stopped)
    last = len(nb.cells) - 1
    for error in notebook_run.cell_errors(nb):
        what = f"{error.ename}: {error.evalue[:200]}"
        inside = 0 < error.index < last
        where = f"cell {error.index}: {what}" if inside else f"the counting: {what}"
        if inside and error.own_assert:
            outcome.skipped_checks.append(where)
        else:
            outcome.errors.append(where)
    outcome.slowest = _slowest_cells(nb.cells[1:-1])
    for output in nb.cells[-1].get("outputs", []):
        text = output.get("text", "")
        if text.startswith("GPU-CHECK "):
            outcome.stats = json.loads(text[len("GPU-CHECK ") :])
            outcome.estimate = t4_estimate.estimate(outcome.stats)
    return outcome


HEADER = (
    f"{'chapter':<28} {'result':<7} {'time':>7} {'steps':>6} {'planned':>9} {'GFLOP':>9}"
    f" {'peak MB':>8} {'T4 gpu profile':>20}  result asserts skipped"
)


def report(outcomes: list[Outcome]) -> str:
    """The table of ``outcomes``, what each found, and the T4 estimate's assumption."""
    return "\n".join([HEADER, *_lines(outcomes), f"assumed: {t4_estimate.ASSUMPTION}"])


def _lines(outcomes: list[Outcome]) -> list[str]:
    """A row for each outcome, then each one's errors, slowest cells and T4 estimate."""
    lines = []
    for o in outcomes:
        s, e = o.stats, o.estimate
        flops = f"{s['totals']['flops'] / 1e9:9.1f}" if s else f"{'-':>9}"
        over = e is not None and (
            e.seconds > t4_estimate.BUDGET_SECONDS
            or s.get("peak_mb", 0) > t4_estimate.T4_MEMORY_MB
        )
        est = f"{e.seconds / 60:5.1f} min {'OVER' if over else 'ok':>4}" if e else "-"
        taken = sum(run["taken"] for run in s.get("runs", []))
        lines.append(
            f"{o.chapter:<28} {'ok' if o.passed else 'FAILED':<7} {o.seconds:6.0f}s "
            f"{taken:>6} {e.planned_steps if e else 0:>9,} {flops} "
            f"{s.get('peak_mb', 0):8.0f} {est:>20}  {len(o.skipped_checks)}"
        )
    for o in outcomes:
        for error in o.errors:
            lines.append(f"  {o.chapter}: {error}")
        if o.slowest:
            cells = ", ".join(f"cell {i} {t:.0f} s" for i, t in o.slowest)
            lines.append(f"  {o.chapter}: slowest {cells}")
        e = o.estimate
        if e is not None:
            lines.append(
                f"  {o.chapter}: T4 estimate: {e.planned_steps:,} planned steps in "
                f"{len(o.stats['runs'])} runs, {e.planned_flops / 1e12:,.1f} TFLOP, "
                f"{e.training_seconds:,.0f} s training + {e.other_seconds:,.0f} s other "
                f"work (budget {t4_estimate.BUDGET_SECONDS} s; peak "
                f"{o.stats.get('peak_mb', 0):,.0f} of {t4_estimate.T4_MEMORY_MB:,} MB)"
            )
            lines.extend(f"  {o.chapter}: plan: {problem}" for problem in e.problems)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", help="chapter numbers (default: all)")
    parser.add_argument("--json", help="also write the outcomes to this file")
    parser.add_argument("--jobs", type=int, default=1, help="chapters run at once")
    args = parser.parse_args(argv)
    paths = notebook_run.chapters(ROOT, args.chapters)
    outcomes = []
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for outcome in pool.map(run, paths):  # in chapter order, as each is done
            outcomes.append(outcome)
            print("\n".join(_lines([outcome])), flush=True)
    print(report(outcomes))
    if args.json:
        Path(args.json).write_text(
            json.dumps([asdict(o) for o in outcomes], indent=1), encoding="utf-8"
        )
    return 0 if all(o.passed for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
