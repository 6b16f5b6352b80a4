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
