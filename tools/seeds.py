"""Run chapters with other random draws and list the findings that do not survive them.

    python tools/seeds.py 09 [NN ...] [--seeds 1 2] [--jobs 2]   # make seeds N=09 (or N=all)

Each chapter runs (``--profile`` cpu) with ``COURSE_SEED`` 0, then with each of ``--seeds``
(``course_lib.runtime.run_seed``), recording into ``_build/seeds/seed-<s>/``. It lists each
failing ``assert`` or other error, and each finding (``course_lib.results.findings``) that
differs from seed 0's, and exits 1 on any. ``--reference DIR``: seed 0's results, already run.
"""

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nbformat
import notebook_run  # tools/, beside this file

from course_lib.results import findings

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "_build" / "seeds"


@dataclass
class SeedRun:
    """One chapter run with one seed: its time, what failed, and what it recorded."""

    chapter: str  # "09_pretraining"
    seed: int
    seconds: float
    failures: list[str]
    results: dict


def read_results(folder: Path, path: Path) -> dict:
    """Chapter ``path``'s recorded values in a results folder (``chNN.json``; {}: none)."""
    file = folder / f"ch{path.name[:2]}.json"
    return json.loads(file.read_text(encoding="utf-8")) if file.is_file() else {}


def run(path: Path, seed: int, profile: str, out: Path, timeout: int) -> SeedRun:
    """Execute chapter ``path`` with ``COURSE_SEED=seed`` into ``out/seed-<seed>``."""
    folder = out / f"seed-{seed}"
    results = folder / "results"
    (results / f"ch{path.name[:2]}.json").unlink(missing_ok=True)  # this run's only
    nb = nbformat.read(path, as_version=4)
    env = {
        "COURSE_PROFILE": profile,
        "COURSE_SEED": str(seed),
        "COURSE_RESULTS_DIR": str(results),
        "COURSE_WIDGET_MODE": "html",
        "COURSE_PROGRESS": "0",
        "OMP_NUM_THREADS": "1",
    }
    seconds, stopped = notebook_run.execute(nb, path, env, timeout)
    failures = [f"the run stopped: {stopped}"] if stopped else []
    for error in notebook_run.cell_errors(nb):
        failures.append(f"{'assert fails' if error.own_assert else 'error'}: {error}")
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / path.name)
    return SeedRun(path.stem, seed, seconds, failures, read_results(results, path))


def flips(reference: dict, other: dict) -> list[str]:
    """Each finding of ``reference`` (seed 0's results) that ``other`` states otherwise."""
    ours, theirs = findings(reference), findings(other)
    return [
        f"verdict differs: {key}: {value!r} at seed 0, {theirs.get(key, '(not recorded)')!r}"
        for key, value in ours.items()
        if theirs.get(key) != value
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", help="chapter numbers, or all (default)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--profile", default="cpu", choices=("smoke", "cpu", "gpu"))
    parser.add_argument("--jobs", type=int, default=2, help="runs at once")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--root", type=Path, default=ROOT, help="holds notebooks/")
    parser.add_argument("--reference", type=Path, help="seed 0's results folder")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds a cell")
    args = parser.parse_args(argv)
    if any(s <= 0 for s in args.seeds):
        parser.error("--seeds: the other draws are positive (seed 0 is the reference)")
    paths = notebook_run.chapters(args.root, args.chapters)
    seeds = ([] if args.reference else [0]) + sorted(set(args.seeds))
    todo = [(p, s, args.profile, args.out, args.timeout) for s in seeds for p in paths]
    runs: dict[tuple[str, int], SeedRun] = {}
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for outcome in pool.map(run, *zip(*todo)):
            runs[outcome.chapter, outcome.seed] = outcome
            took = f"{outcome.seconds:.0f} s, {len(outcome.failures)} failures"
            print(f"{outcome.chapter} seed {outcome.seed}: {took}", flush=True)
    bad = 0
    for path in paths:
        if args.reference:
            reference = read_results(args.reference, path)
        else:
            reference = runs[path.stem, 0].results
        for seed in seeds:
            outcome = runs[path.stem, seed]
            flipped = flips(reference, outcome.results) if seed else []
            found = outcome.failures + flipped
            bad += len(found)
            for line in found:
                print(f"{path.stem} seed {seed}: {line}")
        print(f"{path.stem}: {len(findings(reference))} glued verdicts, seeds {seeds}")
    held = "every assert holds, no verdict flips"
    print(f"{bad} failures and flips" if bad else held)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
