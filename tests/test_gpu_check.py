"""tools/gpu_check.py on small notebooks run by a real kernel: the counts it prints, and which
errors fail a chapter (code that cannot run) and which are listed (a result's assert)."""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import gpu_check  # noqa: E402
import pytest  # noqa: E402
import t4_estimate  # noqa: E402
import torch  # noqa: E402
from live_lab import write_notebook  # noqa: E402

from course_lib import step_plan  # noqa: E402


def notebook(path: Path, *cells: str) -> Path:
    """A notebook of these code cells at ``path`` (the live widget tests' writer)."""
    write_notebook(path, list(cells))
    return path


TRAIN = """\
import torch
from course_lib.training import fit
layer = torch.nn.Linear(4, 4, bias=False)
batches = [torch.ones(2, 4)] * 300
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
fit(layer, batches, optimizer=opt, loss_fn=lambda m, x: m(x).sum(), progress=False)
"""
# each step: the (2, 4) @ (4, 4) product, 2·2·4·4 FLOPs, and its gradient for the weight
STEP_FLOPS = 2 * (2 * 2 * 4 * 4)


def test_a_run_counts_steps_and_flops_and_lists_a_result_assert(tmp_path):
    path = notebook(
        tmp_path / "01_a.ipynb",
        TRAIN,
        "loss = {'a': 2.0, 'b': 1.0}\nassert (\n    loss['a']\n    < loss['b']\n)",
        "print('the cells after it still run')",
    )
    outcome = gpu_check.run(path, timeout=120)
    assert outcome.passed, outcome.errors
    (run,) = outcome.stats["runs"]  # fit stopped after the check's steps
    taken = step_plan.CHECK_STEPS
    assert run["loop"] == "fit" and run["taken"] == taken and run["planned"] == 300
    assert outcome.stats["totals"]["flops"] == taken * STEP_FLOPS
    assert (
        len(outcome.skipped_checks) == 1
        and "AssertionError" in outcome.skipped_checks[0]
    )
    # the three slowest of the chapter's own cells
    slowest = [i for i, _ in outcome.slowest]
    assert len(slowest) == 3 and set(slowest) <= {0, 1, 2, 3}
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
    assert outcome.stats["totals"]["flops"] > 0


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


def test_the_t4_estimate_scales_a_steps_work_by_the_planned_steps(tmp_path):
    path = notebook(
        tmp_path / "01_a.ipynb", TRAIN, "x = torch.ones(8, 8) @ torch.ones(8, 8)"
    )
    outcome = gpu_check.run(path, timeout=120)
    assert outcome.passed, gpu_check.report([outcome])
    (run,) = outcome.stats["runs"]
    intervals = step_plan.CHECK_STEPS - 1  # each step to the next
    assert run["optimizer"] and len(run["intervals"]) == intervals
    assert [i[1] for i in run["intervals"]] == [STEP_FLOPS] * intervals
    e = outcome.estimate
    assert e.planned_steps == 300 and e.planned_flops == 300 * STEP_FLOPS
    ops = statistics.fmean(i[2] for i in run["intervals"])
    per_step = t4_estimate.on_t4(0, STEP_FLOPS, ops, 0, python=False)
    assert e.training_seconds == pytest.approx(300 * per_step)
    assert "T4 estimate: 300 planned steps in 1 runs" in gpu_check.report([outcome])


def test_a_run_without_a_plan_or_over_it_fails_the_check(tmp_path):
    path = notebook(
        tmp_path / "01_a.ipynb",
        "from course_lib import step_plan\n"
        "unplanned, over = step_plan.begin('mine'), step_plan.begin('over', 1)\n"
        "for _ in range(2):\n    step_plan.step(unplanned), step_plan.step(over)",
    )
    outcome = gpu_check.run(path, timeout=120)
    assert not outcome.passed and not outcome.errors
    report = gpu_check.report([outcome])
    assert "plan: run 1 (mine) took 2 steps and gave no plan" in report
    assert "plan: run 2 (over) planned 1 steps and took 2" in report


def test_the_estimate_of_runs_and_other_work():
    """Two runs: an optimizer's, 1,000 planned steps of 2 GFLOP and 100 operators; a hand
    loop's, 10 planned steps of 0.5 s of Python; and the rest of the chapter's work."""
    steps = [[0.1, 2e9, 100, 0.05]] * 2  # seconds, FLOPs, operators, seconds in them
    hand = [[0.6, 0.0, 10, 0.1]] * 2
    runs = [
        dict(loop="fit", planned=1000, taken=3, optimizer=True, intervals=steps),
        dict(loop="train_sgns", planned=10, taken=3, optimizer=False, intervals=hand),
    ]
    totals = dict(seconds=12.0, flops=6e9 + 4.05e12, ops=400, op_seconds=1.0)
    e = t4_estimate.estimate(dict(totals=totals, runs=runs))
    assert e.planned_steps == 1010 and e.planned_flops == 1000 * 2e9
    t4 = t4_estimate.T4_FLOPS
    assert e.training_seconds == pytest.approx(1000 * (2e9 / t4 + 100e-5) + 10 * 0.5)
    # the rest: 12 - 0.3 - 1.8 s, of which 1 - 0.15 - 0.3 s in 400 - 300 - 30 operators,
    # and 4.05e12 FLOPs (1 s on a T4)
    assert e.other_seconds == pytest.approx((12 - 2.1) - (1 - 0.45) + 1)
    assert not e.problems


def test_a_step_is_the_mean_of_the_intervals():
    """Batches grouped by length differ: three steps of 100, 100 and 400 operators are 600
    operators, 200 a step (their median, 100, would put 1,000 such steps at half their cost)."""
    steps = [[0.1, 0.0, ops, 0.05] for ops in (100, 100, 400)]
    run = dict(loop="fit", planned=1000, taken=4, optimizer=True, intervals=steps)
    zero = dict(seconds=0.0, flops=0.0, ops=0, op_seconds=0.0)
    e = t4_estimate.estimate(dict(totals=zero, runs=[run]))
    assert e.training_seconds == pytest.approx(1000 * 200 * t4_estimate.T4_OP_SECONDS)


@pytest.mark.parametrize("layer", [torch.nn.GRU, torch.nn.LSTM, torch.nn.RNN])
def test_a_recurrent_layer_counts_its_flops_and_cudnns_operators(layer):
    """On the CPU a GRU runs a time step at a time; a T4 runs each layer as one cuDNN call,
    forward and backward. An LSTM runs as one fused oneDNN call, which torch gives no FLOPs:
    the counter's formula gives the gates' products, W_ih x and W_hh h at every position."""
    import gpu_counting
    from torch.nn.modules.module import (
        register_module_forward_hook,
        register_module_forward_pre_hook,
    )

    counts = []
    for T in (5, 20):
        torch.manual_seed(0)
        rnn = layer(6, 8, num_layers=2, batch_first=True)
        counter = gpu_counting.Counter()
        hooks = [
            register_module_forward_pre_hook(counter.rnn_enters),
            register_module_forward_hook(counter.rnn_leaves),
        ]
        with counter:
            rnn(torch.randn(3, T, 6))[0].sum().backward()
        for hook in hooks:
            hook.remove()
        counts.append(counter.now()[1:3])  # FLOPs, operators
    (flops_5, ops_5), (flops_20, ops_20) = counts
    # 2 layers x (forward, backward), the sum and its gradient
    assert ops_5 == ops_20 < 12
    gates = {torch.nn.GRU: 3, torch.nn.LSTM: 4, torch.nn.RNN: 1}[layer]
    # 2 B T GH (I + H), two layers
    forward = 2 * 3 * 20 * gates * 8 * ((6 + 8) + (8 + 8))
    assert flops_20 == pytest.approx(3 * forward, rel=0.35)  # forward and backward: 3x
    assert flops_20 == pytest.approx(4 * flops_5, rel=0.1)


def test_the_peak_memory_is_the_kernels_own(tmp_path):
    """Linux keeps ``ru_maxrss`` across exec: a kernel started by a process that held 1 GB
    would report that process's peak. The check reads the kernel's own (VmHWM)."""
    held = torch.ones(256 * 1024 * 1024)  # 1 GiB of float32, touched, in this process
    path = notebook(tmp_path / "05_e.ipynb", "x = 1")
    outcome = gpu_check.run(path, timeout=120)
    del held
    assert outcome.passed, outcome.errors
    assert 0 < outcome.stats["peak_mb"] < 900
