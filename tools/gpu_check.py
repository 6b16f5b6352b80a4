"""Every chapter with the gpu profile's sizes and code paths, a few steps a loop, on the CPU.

    python tools/gpu_check.py [NN ...] [--jobs 2]   # make gpu-check runs them all, 2 at a time

With ``COURSE_PROFILE=gpu COURSE_GPU_CHECK=1`` each training loop plans its whole run
(``course_lib.step_plan``) and takes its first steps. An error fails the check, as does a run
with no plan or over it; a failed ``assert`` of a chapter (a claim on results) is listed. Per
chapter: time, steps, FLOPs, peak memory and the time on a Colab T4 (tools/t4_estimate.py).
"""

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

import nbformat
import notebook_run  # tools/, beside this file
import t4_estimate
from t4_estimate import ASSUMPTION, BUDGET_SECONDS, T4_MEMORY_MB

ROOT = Path(__file__).resolve().parents[1]
# A check's few-step numbers, never in ``_build/results``, which the Results page reads.
RESULTS = ROOT / "_build" / "gpu_check" / "results"
# Before a chapter's first cell and after its last: count what it does (gpu_counting.py).
START = f"""\
import sys as _gc_sys
_gc_sys.path.insert(0, {str(ROOT / "tools")!r})
_gc = __import__("gpu_counting").Counter()
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
    """The ``n`` cells that took longest (index, seconds), by the times nbclient records."""
    times, keys = [], ("iopub.execute_input", "shell.execute_reply")
    for index, cell in enumerate(cells):
        ran = cell.get("metadata", {}).get("execution", {})
        stamps = [ran.get(key, "").replace("Z", "+00:00") for key in keys]
        if all(stamps):
            start, end = map(datetime.fromisoformat, stamps)
            times.append((index, round((end - start).total_seconds(), 1)))
    return sorted(times, key=lambda t: -t[1])[:n]


def run(path: Path, timeout: int = 1800) -> Outcome:
    """Execute one chapter in a gpu check and classify what went wrong."""
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
    outcome.errors += [stopped] if stopped else []
    for error in notebook_run.cell_errors(nb):
        what = f"{error.ename}: {error.evalue[:200]}"
        if 0 < error.index < len(nb.cells) - 1:
            found = outcome.skipped_checks if error.own_assert else outcome.errors
            found.append(f"cell {error.index}: {what}")
        else:
            outcome.errors.append(f"the counting: {what}")
    outcome.slowest = _slowest_cells(nb.cells[1:-1])
    for output in nb.cells[-1].get("outputs", []):
        if output.get("text", "").startswith("GPU-CHECK "):
            outcome.stats = json.loads(output["text"].removeprefix("GPU-CHECK "))
            outcome.estimate = t4_estimate.estimate(outcome.stats)
    return outcome


def report(outcomes: list[Outcome]) -> str:
    """The table of ``outcomes``, what each found, and the T4 estimate's assumption."""
    header = (
        f"{'chapter':<28} {'result':<7} {'time':>7} {'steps':>6} {'planned':>9} "
        f"{'GFLOP':>9} {'peak MB':>8} {'T4 gpu profile':>20}  result asserts skipped"
    )
    lines = [_lines(o) for o in outcomes]
    found = [line for o in lines for line in o[1:]]
    return "\n".join([header, *(o[0] for o in lines), *found, f"assumed: {ASSUMPTION}"])


def _lines(o: Outcome) -> list[str]:
    """An outcome's row of the table, then its errors, slowest cells and T4 estimate."""
    s, e, peak = o.stats, o.estimate, o.stats.get("peak_mb", 0)
    flops = f"{s['totals']['flops'] / 1e9:9.1f}" if s else f"{'-':>9}"
    over = e and (e.seconds > BUDGET_SECONDS or peak > T4_MEMORY_MB)
    est = f"{e.seconds / 60:5.1f} min {'OVER' if over else 'ok':>4}" if e else "-"
    taken = sum(run["taken"] for run in s.get("runs", []))
    row = (
        f"{o.chapter:<28} {'ok' if o.passed else 'FAILED':<7} {o.seconds:6.0f}s "
        f"{taken:>6} {e.planned_steps if e else 0:>9,} {flops} "
        f"{peak:8.0f} {est:>20}  {len(o.skipped_checks)}"
    )
    found = list(o.errors)
    if o.slowest:
        cells = ", ".join(f"cell {i} {t:.0f} s" for i, t in o.slowest)
        found.append(f"slowest {cells}")
    if e:
        found.append(
            f"T4 estimate: {e.planned_steps:,} planned steps in {len(s['runs'])} runs, "
            f"{e.planned_flops / 1e12:,.1f} TFLOP, {e.training_seconds:,.0f} s training "
            f"+ {e.other_seconds:,.0f} s other work (budget {BUDGET_SECONDS} s; peak "
            f"{peak:,.0f} of {T4_MEMORY_MB:,} MB)"
        )
        found += [f"plan: {problem}" for problem in e.problems]
    return [row, *(f"  {o.chapter}: {line}" for line in found)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", help="chapter numbers (default: all)")
    parser.add_argument("--json", help="also write the outcomes to this file")
    parser.add_argument("--jobs", type=int, default=1, help="chapters run at once")
    args = parser.parse_args(argv)
    outcomes = []
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        paths = notebook_run.chapters(ROOT, args.chapters)
        for outcome in pool.map(run, paths):  # in chapter order, as each is done
            outcomes.append(outcome)
            print(*_lines(outcome), sep="\n", flush=True)
    print(report(outcomes))
    if args.json:
        text = json.dumps([asdict(o) for o in outcomes], indent=1)
        Path(args.json).write_text(text, encoding="utf-8")
    return 0 if all(o.passed for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
