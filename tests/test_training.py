import numpy as np
import pytest
import torch
from torch import nn

from course_lib.training import History, evaluate, evaluating, fit, to_device


class Linear(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(3, 1)

    def forward(self, x, y):
        return ((self.layer(x).squeeze(-1) - y) ** 2).mean()


def _data(n=64):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, 3, generator=g)
    y = x @ torch.tensor([1.0, -2.0, 0.5]) + 0.3
    return [(x[i : i + 16], y[i : i + 16]) for i in range(0, n, 16)]


def test_fit_matches_a_hand_written_loop():
    batches = _data()
    torch.manual_seed(1)
    model = Linear()
    torch.manual_seed(1)
    reference = Linear()
    hist = fit(
        model,
        batches,
        optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
        epochs=3,
        progress=False,
    )
    opt = torch.optim.SGD(reference.parameters(), lr=0.1)
    for _ in range(3):
        for x, y in batches:
            opt.zero_grad()
            reference(x, y).backward()
            opt.step()
    for p, q in zip(model.parameters(), reference.parameters()):
        assert torch.allclose(p, q)
    assert len(hist.train_loss) == 3 and len(hist.step_loss) == 12
    assert hist.train_loss[-1] < hist.train_loss[0]


def test_clipping_bounds_the_update():
    model = Linear()
    before = [p.detach().clone() for p in model.parameters()]
    x = torch.full((4, 3), 100.0)
    y = torch.zeros(4)
    fit(
        model,
        [(x, y)],
        optimizer=torch.optim.SGD(model.parameters(), lr=1.0),
        clip_norm=0.5,
        progress=False,
    )
    step = torch.cat(
        [(p.detach() - b).flatten() for p, b in zip(model.parameters(), before)]
    )
    assert step.norm() == pytest.approx(0.5, rel=1e-4)


def test_validation_and_history():
    batches = _data()
    model = Linear()
    hist = fit(
        model,
        lambda: iter(batches),
        valid=batches[:1],
        epochs=2,
        progress=False,
        optimizer=torch.optim.Adam(model.parameters(), lr=1e-2),
    )
    assert isinstance(hist, History) and len(hist.valid_loss) == 2
    assert set(hist.as_dict()) == {"train", "valid"}
    assert evaluate(model, batches[:1]) == pytest.approx(hist.valid_loss[-1])


def test_bad_input_is_explained():
    model = Linear()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="one-shot iterator"):
        fit(model, iter(_data()), optimizer=opt, epochs=2, progress=False)
    with pytest.raises(ValueError, match="epochs"):
        fit(model, _data(), optimizer=opt, epochs=0)
    with pytest.raises(ValueError, match="scalar"):
        fit(
            model,
            _data(),
            optimizer=opt,
            progress=False,
            loss_fn=lambda m, b: m.layer(b[0]),
        )
    with pytest.raises(FloatingPointError, match="learning rate"):
        fit(
            model,
            _data(),
            optimizer=opt,
            progress=False,
            loss_fn=lambda m, b: m(*b) * float("nan"),
        )


def test_to_device_nested():
    batch = {"a": torch.ones(1), "b": [torch.zeros(1), 3]}
    moved = to_device(batch, "cpu")
    assert moved["b"][1] == 3 and moved["a"].device.type == "cpu"


def test_evaluating_restores_each_mode_even_after_an_exception():
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))
    model[1].eval()  # a mixed state: the container trains, the dropout does not
    with evaluating(model) as same:
        assert same is model
        assert not any(m.training for m in model.modules())
    assert model.training and not model[1].training
    with pytest.raises(RuntimeError, match="inside"):
        with evaluating(model):
            raise RuntimeError("inside")
    assert model.training and model[0].training and not model[1].training
    model.eval()
    with evaluating(model):
        pass
    assert not model.training
    with pytest.raises(TypeError, match="nn.Module"):
        with evaluating("not a model"):
            pass


def _lrs(schedule, total, lr=0.2, steps=None):
    """The optimiser's lr before each update under ``lr_scheduler(schedule, total)``."""
    from course_lib.training import lr_scheduler

    opt = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=lr)
    sched = lr_scheduler(opt, schedule, total)
    seen = []
    for _ in range(total + 1 if steps is None else steps):
        seen.append(opt.param_groups[0]["lr"] / lr)
        opt.step()
        if sched is not None:
            sched.step()
    return seen


def test_lr_scheduler_gives_the_expected_learning_rate_per_step():
    assert _lrs("constant", 4) == [1.0] * 5
    assert _lrs("linear", 4) == pytest.approx([1.0, 0.75, 0.5, 0.25, 0.0], abs=1e-12)
    expected = [1.0, (1 + 2**-0.5) / 2, 0.5, (1 - 2**-0.5) / 2, 0.0]
    assert _lrs("cosine", 4) == pytest.approx(expected, abs=1e-12)
    # the optimiser's lr after each of the steps
    seen = [0.2 * f for f in _lrs("linear", 4, steps=4)]
    assert seen == pytest.approx([0.2, 0.15, 0.1, 0.05])


def test_lr_scheduler_rejects_bad_input():
    from course_lib.training import lr_scheduler

    opt = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.1)
    with pytest.raises(ValueError, match="schedule must be one of"):
        lr_scheduler(opt, "step", 4)
    with pytest.raises(ValueError, match="total_steps"):
        lr_scheduler(opt, "linear", 0)


def test_weight_average_equals_a_hand_computed_average():
    from course_lib.training import weight_average

    torch.manual_seed(0)
    model = nn.Linear(2, 1)
    start = [p.detach().clone() for p in model.parameters()]
    average = weight_average(model, decay=0.5)
    snapshots = []
    for k in range(4):  # four "updates": set the weights by hand
        with torch.no_grad():
            for p in model.parameters():
                p.add_(float(k + 1))
        snapshots.append([p.detach().clone() for p in model.parameters()])
        average.update_parameters(model)
    # by hand: beta_t = min(0.5, (1 + t) / (10 + t)) = 2/11, 3/12, 4/13, 5/14
    expected = [s.clone() for s in start]
    for t, snap in enumerate(snapshots, start=1):
        beta = min(0.5, (1 + t) / (10 + t))
        expected = [beta * e + (1 - beta) * s for e, s in zip(expected, snap)]
    for p, e in zip(average.module.parameters(), expected):
        torch.testing.assert_close(p.detach(), e)
    for p, n in zip(model.parameters(), snapshots[-1]):  # the raw weights are untouched
        torch.testing.assert_close(p.detach(), n)
    with pytest.raises(ValueError, match="decay must be"):
        weight_average(model, decay=1.0)


def test_weight_average_past_its_warm_up_is_a_fixed_decay_ema():
    from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

    from course_lib.training import weight_average

    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def step():
        loss = model(torch.randn(4, 3)).pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()

    ours = weight_average(model, decay=0.9)
    ours.n_averaged.fill_(10**6)  # past the warm-up: beta_t = 0.9 from here on
    ref = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
    ref.update_parameters(model)  # the first update copies the weights, as ours did
    for _ in range(5):
        step()
        ours.update_parameters(model)
        ref.update_parameters(model)
    for p, q in zip(ours.module.parameters(), ref.module.parameters()):
        torch.testing.assert_close(p.detach(), q.detach())


def test_fit_calls_on_step_after_every_update():
    calls = []
    model = Linear()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    fit(
        model,
        _data(),
        optimizer=opt,
        epochs=2,
        on_step=lambda: calls.append(1),
        progress=False,
    )
    assert len(calls) == 2 * len(_data())


def test_fit_stops_after_max_steps_within_an_epoch():
    batches = _data()  # 4 batches an epoch
    torch.manual_seed(2)
    model = Linear()
    torch.manual_seed(2)
    reference = Linear()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    hist = fit(
        model,
        batches,
        optimizer=opt,
        epochs=3,
        max_steps=6,
        valid=batches,
        progress=False,
    )
    assert len(hist.step_loss) == 6
    assert (
        len(hist.train_loss) == len(hist.valid_loss) == 2
    )  # the second epoch ends at step 6
    assert hist.train_loss[1] == pytest.approx(sum(hist.step_loss[4:]) / 2)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1)
    for x, y in (batches * 2)[:6]:
        ref_opt.zero_grad()
        reference(x, y).backward()
        ref_opt.step()
    for p, q in zip(model.parameters(), reference.parameters()):
        assert torch.equal(p, q)


@pytest.mark.parametrize("bad", [0, -1, True])
def test_fit_rejects_a_max_steps_that_is_not_positive(bad):
    model = Linear()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with pytest.raises(ValueError, match="max_steps must be a positive integer"):
        fit(model, _data(), optimizer=opt, max_steps=bad, progress=False)


def test_running_loss_is_each_windows_mean_ending_at_its_step():
    losses = [5.0, 3.0, 4.0, 1.0, 2.0, 0.5]
    hist = History(step_loss=losses)
    steps, means = hist.running_loss(3)
    assert steps.tolist() == [3, 4, 5, 6]
    want = [
        sum(losses[end - 3 : end]) / 3 for end in steps
    ]  # the window ending at step
    np.testing.assert_allclose(means, want, rtol=0, atol=1e-12)
    steps1, means1 = hist.running_loss(1)  # width 1: the losses themselves
    assert steps1.tolist() == [1, 2, 3, 4, 5, 6] and means1.tolist() == losses
    for bad in (0, 7, 2.5, True):
        with pytest.raises(ValueError, match="width must be an int in 1..6"):
            hist.running_loss(bad)
