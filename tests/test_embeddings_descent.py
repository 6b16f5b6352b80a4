"""Gradient descent vs SGD on the skip-gram objective (course_lib.embeddings.descent)."""

import pytest
import torch

from course_lib.embeddings.descent import (
    DescentCurve,
    best_runs,
    descent_curves,
    full_objective,
)
from course_lib.embeddings.word2vec import SkipGram


def _pairs(P=300, V=20, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, V, (P, 2), generator=gen)


def test_full_objective_is_the_mean_loss_over_all_pairs_whatever_the_chunk():
    torch.manual_seed(0)
    model = SkipGram(20, 4, dtype=torch.float64)
    with torch.no_grad():
        model.U.normal_()
    pairs = _pairs()
    expected = model(pairs[:, 0], pairs[:, 1]).item()
    assert full_objective(model, pairs, chunk=7) == pytest.approx(expected, rel=1e-12)


def test_gradient_descent_step_uses_the_exact_full_gradient():
    pairs = _pairs()
    (gd,) = descent_curves(pairs, 20, [("gd", None, 0.5)], dim=4, examples=300, evals=1)
    assert gd.batch_size == 300 and len(gd.step_loss) == 1
    # one step: the loss of its batch is J at the start, and J goes down
    assert gd.step_loss[0] == pytest.approx(gd.objective[0], rel=1e-6)
    assert gd.objective[-1] < gd.objective[0]


def test_runs_share_the_start_and_process_the_same_examples():
    pairs = _pairs()
    runs = [("gd", None, 1.0), ("sgd", 10, 0.5)]
    gd, sgd = descent_curves(pairs, 20, runs, dim=4, examples=3000, evals=5)
    assert gd.objective[0] == sgd.objective[0]
    assert gd.examples[-1] == sgd.examples[-1] == 3000
    assert len(gd.step_loss) == 10 and len(sgd.step_loss) == 300
    assert sgd.objective[-1] < gd.objective[-1]  # same work, more steps
    again = descent_curves(pairs, 20, runs, dim=4, examples=3000, evals=5)
    assert again[1].objective == sgd.objective  # deterministic


def test_bad_input_is_reported():
    with pytest.raises(ValueError, match=r"pairs must be a \(P, 2\)"):
        descent_curves(torch.zeros(5, dtype=torch.long), 3, [("gd", None, 1.0)])
    with pytest.raises(ValueError, match="pairs is empty"):
        descent_curves(torch.zeros(0, 2, dtype=torch.long), 3, [("gd", None, 1.0)])
    with pytest.raises(ValueError, match=r"pair ids must be in \[0, 3\)"):
        descent_curves(torch.tensor([[0, 5]]), 3, [("gd", None, 1.0)])
    with pytest.raises(ValueError, match="runs is empty"):
        descent_curves(_pairs(V=3), 3, [])
    with pytest.raises(ValueError, match="batch size of run 'x'"):
        descent_curves(_pairs(V=3), 3, [("x", 0, 1.0)])


def _curve(name, lr, final):
    return DescentCurve(name, 1, lr, examples=[0, 1], objective=[9.0, final])


def test_best_runs_keeps_each_names_lowest_final_J_and_never_a_diverged_one():
    sweep = [
        _curve("gd", 1.0, 5.0),
        _curve("sgd", 1.0, 4.0),
        _curve("gd", 2.0, 3.0),
        _curve("sgd", 2.0, float("nan")),  # diverged
        _curve("gd", 4.0, float("inf")),
    ]
    gd, sgd = best_runs(sweep)
    assert (gd.name, gd.lr) == ("gd", 2.0) and (sgd.name, sgd.lr) == ("sgd", 1.0)
    # on real runs: the sweep's winner is the run of the lowest final J among finite ones
    runs = [("sgd", 10, lr) for lr in (0.1, 1.0, 1e6)]
    curves = descent_curves(_pairs(), 20, runs, dim=4, examples=600, evals=2)
    finite = [c for c in curves if c.objective[-1] == c.objective[-1] < float("inf")]
    assert best_runs(curves)[0] is min(finite, key=lambda c: c.objective[-1])


def test_best_runs_reports_a_sweep_that_all_diverged():
    with pytest.raises(ValueError, match="curves is empty"):
        best_runs([])
    with pytest.raises(ValueError, match=r"every learning rate of \['gd'\] diverged"):
        best_runs([_curve("gd", 1.0, float("nan")), _curve("sgd", 1.0, 2.0)])
