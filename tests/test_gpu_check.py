"""tools/gpu_check.py on small notebooks run by a real kernel: the counts it prints, and which
errors fail a chapter (code that cannot run) and which are listed (a result's assert)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import gpu_check  # noqa: E402
from live_lab import write_notebook  # noqa: E402


def notebook(path: Path, *cells: str) -> Path:
    """A notebook of these code cells at ``path`` (the live widget tests' writer)."""
    write_notebook(path, list(cells))
    return path


TRAIN = """\
import torch
w = torch.nn.Parameter(torch.ones(4, 4))
opt = torch.optim.SGD([w], lr=0.1)
for _ in range(3):
    opt.zero_grad()
    (torch.ones(2, 4) @ w).sum().backward()
    opt.step()
"""


def test_a_run_counts_steps_and_flops_and_lists_a_result_assert(tmp_path):
    path = notebook(
        tmp_path / "01_a.ipynb",
        TRAIN,
        "loss = {'a': 2.0, 'b': 1.0}\nassert (\n    loss['a']\n    < loss['b']\n)",
        "print('the cells after it still run')",
    )
    outcome = gpu_check.run(path, timeout=120)
    assert outcome.passed, outcome.errors
    assert outcome.stats["steps"] == 3
    # each step: the (2, 4) @ (4, 4) product, 2·2·4·4 FLOPs, and its gradient for w
    assert outcome.stats["flops"] == 3 * 2 * (2 * 2 * 4 * 4)
    assert (
        len(outcome.skipped_checks) == 1
        and "AssertionError" in outcome.skipped_checks[0]
    )
    assert sorted(i for i, _ in outcome.slowest) == [0, 1, 2]  # the chapter's own cells
    assert "slowest cell" in gpu_check.report([outcome])


def test_the_counting_leaves_autograd_grad_through_a_module_working(tmp_path):
    """torch's FlopCounterMode hooks every module to attribute FLOPs to it, and those hooks
    break torch.autograd.grad through a module ("A leaf node was passed to
    _will_engine_execute_node"); the check counts without them."""
    path = notebook(
        tmp_path / "03_c.ipynb",
        "import torch\nlayer = torch.nn.Linear(3, 2)\nx = torch.ones(4, 3, requires_grad=True)\n"
        "(g,) = torch.autograd.grad(layer(x).sum(), x)\nassert g.shape == (4, 3)",
    )
    outcome = gpu_check.run(path, timeout=120)
    assert outcome.passed and not outcome.skipped_checks, outcome.errors
    assert outcome.stats["flops"] > 0


def test_an_error_in_the_code_or_an_assert_inside_a_library_fails(tmp_path):
    (tmp_path / "helper.py").write_text("def check(x):\n    assert x > 0\n")
    path = notebook(
        tmp_path / "02_b.ipynb",
        "import sys; sys.path.insert(0, '.')\nfrom helper import check\ncheck(-1)",
        "torch.zeros(2, 3) @ torch.zeros(2, 3)",
    )
    outcome = gpu_check.run(path, timeout=120)
    assert not outcome.passed and not outcome.skipped_checks
    assert [e.split(":")[0] for e in outcome.errors] == ["cell 1", "cell 2"]
    assert "AssertionError" in outcome.errors[0] and "NameError" in outcome.errors[1]
    assert "FAILED" in gpu_check.report([outcome])


def test_what_a_check_records_stays_out_of_the_books_results(tmp_path):
    """A gpu check's few-step numbers must not replace a chapter's results, which the
    Results page reads: the kernel records into gpu_check.RESULTS."""
    path = notebook(
        tmp_path / "04_d.ipynb",
        "from course_lib.results import results_dir\n"
        f"if results_dir() != __import__('pathlib').Path({str(gpu_check.RESULTS)!r}):\n"
        "    raise RuntimeError(f'results go to {results_dir()}')",
    )
    outcome = gpu_check.run(path, timeout=120)
    assert outcome.passed, outcome.errors
    assert gpu_check.RESULTS != ROOT / "_build" / "results"
