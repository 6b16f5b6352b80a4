"""Every training loop plans its run's steps from its arguments (course_lib.step_plan): run
to completion in a gpu check, it takes exactly the steps it planned; stopped after the check's
few steps, it still plans the whole run; outside a gpu check nothing is recorded and its
numbers are the same."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from course_lib import step_plan
from course_lib.backprop.window_classifier import (
    WindowConfig,
    engine_params,
    init_params,
    make_batches,
    train_with_engine,
)
from course_lib.embeddings import (
    SGNSConfig,
    SkipGram,
    cooccurrence_matrix,
    skipgram_pairs,
    train_glove,
    train_sgns,
    train_word2vec,
)
from course_lib.embeddings.descent import descent_curves
from course_lib.lm.rnn_lm import RNNLM, RNNLMConfig, batchify, train_tbptt
from course_lib.pretraining import GPT, GPTConfig, TrainConfig, eval_blocks, pretrain
from course_lib.pretraining.text_to_text import tune
from course_lib.rnn.long_range import LongRangeClassifier, train_long_range
from course_lib.training import fit

CORPUS = [[0, 1, 2, 3, 7], [0, 1, 5, 7], [0, 4, 6, 7], [2, 3, 5, 6, 1, 0]]
PAIRS = skipgram_pairs(CORPUS, 2)  # (P, 2)
GPT_SIZES = dict(
    vocab_size=12, d_model=8, n_heads=2, d_ff=16, n_layers=1, max_len=8, dropout=0.0
)


def _mse(model, batch):
    return F.mse_loss(model(batch[0]), batch[1])


def fit_list():
    """7 batches, 3 epochs: 21 steps."""
    torch.manual_seed(0)
    model = nn.Linear(2, 1)
    data = [(torch.randn(4, 2), torch.randn(4, 1)) for _ in range(7)]
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    h = fit(model, data, optimizer=opt, epochs=3, loss_fn=_mse, progress=False)
    return h.step_loss, [21]


def fit_generator():
    """A fresh shuffled generator of 5 batches an epoch, 3 epochs, stopped at 12 steps."""
    torch.manual_seed(0)
    model, x, y = nn.Linear(2, 1), torch.randn(20, 2), torch.randn(20, 1)
    gen = torch.Generator().manual_seed(0)

    def epoch():
        for idx in torch.randperm(20, generator=gen).split(4):
            yield x[idx], y[idx]

    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    h = fit(
        model,
        epoch,
        optimizer=opt,
        epochs=3,
        loss_fn=_mse,
        max_steps=12,
        progress=False,
    )
    return h.step_loss, [12]


def pretrain_resumed(tmp_path):
    """5 steps straight; then 2 steps until a checkpoint and 3 resumed from it."""
    blocks = eval_blocks(torch.arange(300) % 12, 9)  # (n, 9)
    cfg = TrainConfig(steps=5, batch_size=4, warmup=1, log_every=100)

    def run(**kw):
        torch.manual_seed(0)
        return pretrain(GPT(GPTConfig(**GPT_SIZES)), blocks, cfg, log=None, **kw)

    straight = run()
    run(checkpoint=tmp_path / "c.pt", until=2)
    return straight + run(checkpoint=tmp_path / "c.pt", resume=True), [5, 2, 3]


def word2vec():
    """⌈P / 8⌉ batches, 2 epochs."""
    torch.manual_seed(0)
    model = SkipGram(8, 4)
    losses = train_word2vec(
        model, PAIRS, epochs=2, batch_size=8, optimizer="adam", lr=0.05, progress=False
    ).train_loss
    return losses, [2 * math.ceil(len(PAIRS) / 8)]


def tbptt():
    """(B, L) = (4, 50): ⌈49 / 10⌉ = 5 windows, 3 epochs, stopped at 13 steps."""
    torch.manual_seed(0)
    model = RNNLM(RNNLMConfig(vocab_size=5, d_embed=4, d_hidden=6))
    data = batchify(torch.arange(5).repeat(40), 4)  # (4, 50)
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    h = train_tbptt(
        model, data, optimizer=opt, bptt=10, epochs=3, max_steps=13, progress=False
    )
    return h.step_loss, [13]


def descent():
    """300 examples: one step of all P pairs a run until 300 are seen, and of 32."""
    runs = [("gd", None, 0.5), ("sgd", 32, 0.5)]
    curves = descent_curves(PAIRS, 8, runs, dim=4, examples=300, evals=2)
    return [c.step_loss for c in curves], [math.ceil(300 / len(PAIRS)), 10]


def long_range():
    torch.manual_seed(0)
    model = LongRangeClassifier("rnn", n_classes=3, hidden=8)
    h = train_long_range(model, 4, steps=6, batch=8)
    return h["loss"], [6]


def sgns():
    """2 epochs of subsampled centres, 4 a batch: each epoch's own count, and the epochs a
    check does not reach as many as the last it began."""
    counts = torch.bincount(torch.tensor([t for s in CORPUS for t in s])).double()
    cfg = SGNSConfig(dim=4, window=2, negatives=2, epochs=2, batch_size=4, sample=0.1)
    run = train_sgns(CORPUS * 5, counts, cfg, progress=False, log_every=1)
    batches = [math.ceil(e["effective_words"] / 4) for e in run.epochs]
    steps = sum(batches) + (2 - len(batches)) * batches[-1]
    return [h["loss"] for h in run.history], [steps]


def glove():
    X = cooccurrence_matrix(CORPUS, 8, 2, weighting="harmonic", sparse=True)
    run = train_glove(X, dim=4, epochs=3, batch_size=8, progress=False)
    return run.loss, [3 * math.ceil(X._nnz() / 8)]


def engine():
    """12 windows in batches of 5 (3 batches), 2 epochs."""
    gen = torch.Generator().manual_seed(0)
    ids, tags = torch.randint(0, 9, (12, 5), generator=gen), torch.arange(12) % 3
    cfg = WindowConfig(9, 3, window=2, d_embed=4, d_hidden=6)
    batches = make_batches(ids, tags, batch_size=5, seed=0)
    params = engine_params(init_params(cfg, seed=1, dtype=torch.float64))
    h = train_with_engine(params, batches, lr=0.5, epochs=2, progress=False)
    return h.step_loss, [6]


def tuned():
    """tune: 5 steps of a generator of 5 batches, through fit."""
    torch.manual_seed(0)
    gpt = GPT(GPTConfig(**GPT_SIZES))
    pairs = [("ab", "ba"), ("ba", "ab")]
    encode = lambda text: [ord(c) - ord("a") for c in text]  # noqa: E731
    h = tune(
        gpt,
        pairs,
        encode=encode,
        evaluate=lambda m: 1.0,
        steps=5,
        batch_size=2,
        lr=1e-3,
        eval_every=5,
        sep="a",
        eos_id=10,
        pad_id=11,
    )
    return (h.loss, h.steps), [5]


LOOPS = [
    fit_list,
    fit_generator,
    word2vec,
    tbptt,
    descent,
    long_range,
    sgns,
    glove,
    engine,
    tuned,
]


@pytest.fixture
def check(monkeypatch):
    """A gpu check whose runs are recorded afresh, stopping a loop after 3 steps (below
    WHOLE_RUN, so that the short runs here are told from the stopped ones); returns the
    recorded runs."""
    monkeypatch.setenv("COURSE_GPU_CHECK", "1")
    monkeypatch.setattr(step_plan, "RUNS", [])
    monkeypatch.setattr(step_plan, "CHECK_STEPS", 3)
    return step_plan


def _run(loop, tmp_path):
    return loop(tmp_path) if loop is pretrain_resumed else loop()


@pytest.mark.parametrize("loop", [*LOOPS, pretrain_resumed], ids=lambda f: f.__name__)
def test_a_loop_plans_the_steps_it_takes(loop, check, monkeypatch, tmp_path):
    monkeypatch.setattr(step_plan, "CHECK_STEPS", 10**9)  # a check that lets it finish
    ticks = []
    monkeypatch.setattr(step_plan, "LISTENERS", [lambda run: ticks.append(run.loop)])
    numbers, expected = _run(loop, tmp_path)
    assert [r.planned for r in check.RUNS] == expected
    assert [r.taken for r in check.RUNS] == expected
    assert len(ticks) == sum(expected)  # the listeners saw every step
    monkeypatch.delenv("COURSE_GPU_CHECK")
    check.RUNS.clear()
    (tmp_path / "again").mkdir()
    # outside a check: the same numbers
    assert _run(loop, tmp_path / "again")[0] == numbers
    assert check.RUNS == [] and len(ticks) == sum(expected)  # and nothing recorded


@pytest.mark.parametrize("loop", [*LOOPS, pretrain_resumed], ids=lambda f: f.__name__)
def test_a_gpu_check_stops_a_loop_early_and_keeps_its_plan(
    loop, check, monkeypatch, tmp_path
):
    monkeypatch.setattr(step_plan, "WHOLE_RUN", 0)  # short runs stop early too
    _, expected = _run(loop, tmp_path)
    assert [r.planned for r in check.RUNS] == expected
    assert [r.taken for r in check.RUNS] == [
        min(check.CHECK_STEPS, n) for n in expected
    ]


def test_a_short_run_runs_whole_in_a_gpu_check(check, tmp_path):
    """Runs of at most WHOLE_RUN (10) steps: the resumed pretraining (5; 2, then 3), six
    long-range steps, and descent's 10 SGD steps; a fit of 21 steps stops after 3."""
    for loop in (pretrain_resumed, long_range, descent, fit_list):
        _run(loop, tmp_path)
    taken = [r.taken for r in check.RUNS]
    assert taken == [5, 2, 3, 6, math.ceil(300 / len(PAIRS)), 10, 3]


def test_tune_evaluates_where_a_gpu_check_stops_it(check):
    (losses, evaluated), _ = tuned()
    assert len(losses) == 3 and evaluated == [3]


def test_planned_steps_and_the_plan_of_the_epochs_to_come(monkeypatch):
    assert step_plan.planned_steps(3, 7) == 21
    assert step_plan.planned_steps(3, 7, max_steps=10) == 10
    run = step_plan.Run("x", taken=4)
    step_plan.plan_epochs(run, 2, 5, max_steps=12, done=4)  # 4 + min(10, 12 - 4)
    assert run.planned == 12
    assert step_plan.allowed(None, 50) == 50
    assert step_plan.allowed(run, 50) == step_plan.CHECK_STEPS
    monkeypatch.setattr(step_plan, "CHECK_STEPS", 3)  # below WHOLE_RUN (10)
    assert step_plan.allowed(run, 50) == 3
    assert step_plan.allowed(run, 10) == 10  # a short run runs whole
    assert step_plan.count_rest(2, iter(range(5))) == 7
    assert step_plan.begin("fit", 9) is None and not step_plan.step(None)
