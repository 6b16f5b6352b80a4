"""tools/seeds.py (make seeds) on a tiny chapter run by a real kernel: it catches a planted
fragile assert and a planted flipping verdict, and leaves alone what is meant to vary."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import seeds  # noqa: E402
from live_lab import write_notebook  # noqa: E402

CELLS = [
    "from course_lib import run_seed\nfrom course_lib.results import record",
    'record("ch99", "stable", "ahead")',
    'record("ch99", "coin", "heads" if run_seed(0) == 0 else "tails")',
    'record("ch99", "sample", f"draw {run_seed(0)}", example=True)',
    'record("ch99", "score", run_seed(0) % 7)',
    "x = run_seed(3)\nassert x == 3, 'holds for one draw only'",
    "assert run_seed(3) >= 0",
    'record("ch99", "after", "the cells after a failure still run")',
]


def test_make_seeds_finds_a_fragile_assert_and_a_flipping_verdict(tmp_path, capsys):
    (tmp_path / "notebooks").mkdir()
    write_notebook(tmp_path / "notebooks" / "99_planted.ipynb", CELLS)
    out = tmp_path / "out"
    argv = ["99", "--root", str(tmp_path), "--out", str(out), "--seeds", "1"]
    code = seeds.main([*argv, "--profile", "smoke", "--jobs", "2", "--timeout", "120"])
    printed = capsys.readouterr().out
    assert code == 1, printed
    problems = [line for line in printed.splitlines() if "seed 1: " in line]
    problems = [line for line in problems if "failures" not in line]
    assert len(problems) == 2, printed
    assert "assert fails: cell 5: assert x == 3" in problems[0]
    assert "holds for one draw only" in problems[0]
    assert "verdict differs: coin: 'heads' at seed 0, 'tails'" in problems[1]
    assert "seed 0: assert" not in printed and "stable" not in printed
    assert "sample" not in printed  # an example may vary
    # every run records into its own folder, the later cells included
    for seed in (0, 1):
        data = json.loads((out / f"seed-{seed}" / "results" / "ch99.json").read_text())
        assert data["_run"]["seed"] == seed and "after" in data
        assert (out / f"seed-{seed}" / "99_planted.ipynb").is_file()


def test_a_reference_folder_stands_for_seed_zero(tmp_path):
    reference = {"stable": "ahead", "coin": "heads", "n": 3, "_run": {"seed": 0}}
    assert seeds.flips(reference, reference | {"n": 4}) == []
    assert seeds.flips(reference, {"stable": "ahead"}) == [
        "verdict differs: coin: 'heads' at seed 0, '(not recorded)'"
    ]
    data = {
        "a": True,
        "b": 1.5,
        "c": "x",
        "_examples": ["c"],
        "_verdicts": {"d": "ahead"},
    }
    assert seeds.findings(data) == {"a": True, "d": "ahead"}
    # a comparison recorded as an example (one draw shown) is not a finding either
    example = data | {
        "_examples": ["c", "e"],
        "_verdicts": {"d": "ahead", "e": "behind"},
    }
    assert seeds.findings(example) == {"a": True, "d": "ahead"}
