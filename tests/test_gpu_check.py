"""tools/gpu_check.py on small notebooks run by a real kernel: the counts it prints, and which
errors fail a chapter (code that cannot run) and which are listed (a result's assert)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import gpu_check  # noqa: E402
import pytest  # noqa: E402
import t4_estimate  # noqa: E402
import torch  # noqa: E402
from live_lab import write_notebook  # noqa: E402


def notebook(path: Path, *cells: str) -> Path:
    """A notebook of these code cells at ``path`` (the live widget tests' writer)."""
    write_notebook(path, list(cells))
    return path


PICK = """\
import torch
from course_lib import pick
cfg = pick(smoke=dict(n=1), cpu=dict(n=1), gpu=dict(n=300), gpu_check=dict(n=3))
"""
TRAIN = """\
w = torch.nn.Parameter(torch.ones(4, 4))
opt = torch.optim.SGD([w], lr=0.1)
for _ in range(cfg["n"]):
    opt.zero_grad()
    (torch.ones(2, 4) @ w).sum().backward()
    opt.step()
"""
# each step: the (2, 4) @ (4, 4) product, 2·2·4·4 FLOPs, and its gradient for w
STEP_FLOPS = 2 * (2 * 2 * 4 * 4)


@pytest.fixture(autouse=True)
def plans(tmp_path, monkeypatch):
    """A package of plans for the test chapters: chapter 01 trains in its cell-1."""
    package = tmp_path / "test_plans"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "ch01.py").write_text(
        "def steps(cfg):\n    return {'cell-1': cfg['n']}\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(t4_estimate, "PLANS", "test_plans")
    yield package
    for name in [n for n in sys.modules if n.split(".")[0] == "test_plans"]:
        del sys.modules[name]  # each test's plans are its own


def test_a_run_counts_steps_and_flops_and_lists_a_result_assert(tmp_path):
    path = notebook(
        tmp_path / "01_a.ipynb",
        PICK,
        TRAIN,
        "loss = {'a': 2.0, 'b': 1.0}\nassert (\n    loss['a']\n    < loss['b']\n)",
        "print('the cells after it still run')",
    )
    outcome = gpu_check.run(path, timeout=120)
    assert outcome.passed, outcome.errors
    assert outcome.stats["steps"] == 3
    assert outcome.stats["flops"] == 3 * STEP_FLOPS
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


def test_the_t4_estimate_scales_a_steps_work_by_the_planned_steps(tmp_path):
    path = notebook(
        tmp_path / "01_a.ipynb", PICK, TRAIN, "x = torch.ones(8, 8) @ torch.ones(8, 8)"
    )
    outcome = gpu_check.run(path, timeout=120)
    assert outcome.passed, (
        outcome.errors
        + t4_estimate.estimate("01_a", outcome.cells, outcome.stats["picks"]).problems
    )
    (loop,) = outcome.cells["cell-1"]["loops"]  # one optimizer
    assert loop["steps"] == 3 and len(loop["intervals"]) == 2
    # each step to the next
    assert [i[1] for i in loop["intervals"]] == [STEP_FLOPS] * 2
    assert outcome.cells["cell-2"]["flops"] == 2 * 8**3  # no steps: other work
    e = outcome.estimate
    assert e.planned_steps == 300 and e.planned_flops == 300 * STEP_FLOPS
    ops = loop["intervals"][0][2]
    per_step = t4_estimate.step_seconds(STEP_FLOPS, ops)
    assert e.training_seconds == pytest.approx(300 * per_step)
    assert "T4 estimate: 300 planned steps" in gpu_check.report([outcome])


def test_a_plan_that_does_not_match_the_check_fails_it(tmp_path, plans):
    (plans / "ch01.py").write_text(
        "def steps(cfg):\n    return {'cell-1': 2 * cfg['n']}\n"
    )
    path = notebook(tmp_path / "01_a.ipynb", PICK, TRAIN)
    outcome = gpu_check.run(path, timeout=120)
    assert not outcome.passed and not outcome.errors
    report = gpu_check.report([outcome])
    assert (
        "plan: cell cell-1: the plan gives 6 steps for the check, it took 3" in report
    )
    (plans / "ch01.py").write_text("def steps(cfg):\n    return {}\n")
    del sys.modules["test_plans.ch01"]
    outcome.estimate = gpu_check.t4(outcome)
    assert "cell cell-1 took 3 steps and has no plan" in gpu_check.report([outcome])


def test_a_plan_gives_each_loop_of_a_cell_its_steps(tmp_path, plans):
    """Two optimizers in one cell, a large model's few steps and a small one's many: each
    loop's step is its own, and the plan gives each its steps, in the order they first step."""
    (plans / "ch01.py").write_text(
        "def steps(cfg):\n    return {'cell-1': [cfg['n'], 10 * cfg['n']]}\n"
    )
    small_model = TRAIN.replace("torch.ones(4, 4)", "torch.ones(4, 1)")
    two = TRAIN + small_model.replace('range(cfg["n"])', 'range(10 * cfg["n"])')
    path = notebook(tmp_path / "01_a.ipynb", PICK, two)
    outcome = gpu_check.run(path, timeout=120)
    assert outcome.passed, gpu_check.report([outcome])
    assert [lp["steps"] for lp in outcome.cells["cell-1"]["loops"]] == [3, 30]
    e = outcome.estimate
    small = 2 * (2 * 2 * 4 * 1)  # (2, 4) @ (4, 1) and its gradient
    assert (
        e.planned_steps == 3300 and e.planned_flops == 300 * STEP_FLOPS + 3000 * small
    )


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
        counter = gpu_counting.OpCounter()
        hooks = [
            register_module_forward_pre_hook(counter.rnn_enters),
            register_module_forward_hook(counter.rnn_leaves),
        ]
        with counter:
            rnn(torch.randn(3, T, 6))[0].sum().backward()
        for hook in hooks:
            hook.remove()
        counts.append(counter.totals())
    (flops_5, ops_5, _), (flops_20, ops_20, _) = counts
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
