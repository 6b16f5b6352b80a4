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


def test_decay_factor_gives_the_expected_learning_rate_per_step():
    from course_lib.training import decay_factor

    assert [decay_factor("constant", s, 4) for s in range(5)] == [1.0] * 5
    assert [decay_factor("linear", s, 4) for s in range(6)] == [
        1.0, 0.75, 0.5, 0.25, 0.0, 0.0
    ]  # fmt: skip
    cosine = [decay_factor("cosine", s, 4) for s in range(5)]
    expected = [1.0, (1 + 2**-0.5) / 2, 0.5, (1 - 2**-0.5) / 2, 0.0]
    assert cosine == pytest.approx(expected, abs=1e-12)
    # as a LambdaLR: the optimiser's lr after each of the steps
    opt = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=0.2)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: decay_factor("linear", s, 4)
    )
    seen = []
    for _ in range(4):
        seen.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert seen == pytest.approx([0.2, 0.15, 0.1, 0.05])


def test_decay_factor_rejects_bad_input():
    from course_lib.training import decay_factor

    with pytest.raises(ValueError, match="schedule must be one of"):
        decay_factor("step", 0, 4)
    with pytest.raises(ValueError, match="total_steps"):
        decay_factor("linear", 0, 0)
    with pytest.raises(ValueError, match="step must be"):
        decay_factor("linear", -1, 4)


def test_parameter_average_equals_a_hand_computed_average():
    from course_lib.training import ParameterAverage

    torch.manual_seed(0)
    model = nn.Linear(2, 1)
    start = [p.detach().clone() for p in model.parameters()]
    average = ParameterAverage(model, decay=0.5)
    snapshots = []
    for k in range(4):  # four "updates": set the weights by hand
        with torch.no_grad():
            for p in model.parameters():
                p.add_(float(k + 1))
        snapshots.append([p.detach().clone() for p in model.parameters()])
        average.update()
    # by hand: beta_t = min(0.5, (1 + t) / (10 + t)) = 2/11, 3/12, 4/13, 5/14
    expected = [s.clone() for s in start]
    for t, snap in enumerate(snapshots, start=1):
        beta = min(0.5, (1 + t) / (10 + t))
        expected = [beta * e + (1 - beta) * s for e, s in zip(expected, snap)]
    now = [p.detach().clone() for p in model.parameters()]
    with average.swapped_in() as m:
        for p, e in zip(m.parameters(), expected):
            torch.testing.assert_close(p.detach(), e)
    for p, n in zip(model.parameters(), now):  # the raw weights are back
        torch.testing.assert_close(p.detach(), n)
    with pytest.raises(ValueError, match="decay must be"):
        ParameterAverage(model, decay=1.0)
    with pytest.raises(ValueError, match="parameters"):
        average.copy_to(nn.Sequential(nn.Linear(2, 1), nn.Linear(1, 1)))


def test_parameter_average_matches_torch_averaged_model_with_a_fixed_decay():
    from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

    from course_lib.training import ParameterAverage

    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def step():
        loss = model(torch.randn(4, 3)).pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()

    step()  # AveragedModel's first update copies the weights: start both there
    ours = ParameterAverage(model, decay=0.9)
    ours.updates = 10**6  # past the warm-up: beta_t = 0.9 from the start
    ref = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
    ref.update_parameters(model)
    for _ in range(5):
        step()
        ours.update()
        ref.update_parameters(model)
    with ours.swapped_in():
        for p, q in zip(model.parameters(), ref.module.parameters()):
            torch.testing.assert_close(p.detach(), q.detach())


def test_fit_calls_on_step_after_every_update():
    calls = []
    model = Linear()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    fit(model, _data(), optimizer=opt, epochs=2, on_step=lambda: calls.append(1),
        progress=False)  # fmt: skip
    assert len(calls) == 2 * len(_data())
