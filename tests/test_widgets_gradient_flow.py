"""GradientFlowExplorer: gradient_stats, the MLP producer, precomputed states, html bundle,
static figure, and the controls driven in headless Chromium (as tests/test_widgets_browser.py)."""

from __future__ import annotations

import itertools
import json
import math
import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from matplotlib.figure import Figure
from widget_browser import (
    assert_offline,
    offline_page,
    unsuppressed_controls,
    write_widget_page,
)

from course_lib.widgets.base import js_source
from course_lib.widgets.gradient_flow import (
    MLP_ACTIVATIONS,
    QUANTILES,
    GradientFlowExplorer,
    GradientStats,
    gradient_stats,
    mlp_gradient_flow,
    mlp_gradient_flow_explorer,
)


@pytest.fixture(scope="module")
def mlp_widget():
    """The Chapter 3 grid, built once (html mode: no comm)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("COURSE_WIDGET_MODE", "html")
        return mlp_gradient_flow_explorer()


def _rnn_like(seed: int = 0, steps: int = 5) -> dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return {
        f"t = {t}": torch.randn(3, 4, generator=gen, dtype=torch.float64) * 0.5**t
        for t in range(1, steps + 1)
    }


# -- gradient_stats ------------------------------------------------------------------------
def test_gradient_stats_matches_a_direct_computation():
    grads = _rnn_like()
    grads["t = 2"][0, 0] = 0.0  # an exact zero is fine
    s = gradient_stats(grads)
    assert s.names == tuple(grads) and s.levels == QUANTILES
    for name, norm, q in zip(s.names, s.norms, s.quantiles):
        g = grads[name]
        assert norm == pytest.approx(torch.linalg.vector_norm(g).item(), rel=1e-12)
        want = torch.quantile(g.abs().flatten(), torch.tensor(QUANTILES, dtype=g.dtype))
        np.testing.assert_allclose(q, want.numpy(), rtol=1e-12)
        sorted_abs = g.abs().flatten().sort().values  # the median by hand: 12 entries
        assert q[2] == pytest.approx(((sorted_abs[5] + sorted_abs[6]) / 2).item())
    pairs = gradient_stats(list(grads.items()), levels=(0.0, 1.0))  # pairs, own levels
    assert pairs.quantiles[0] == (
        grads["t = 1"].abs().min().item(),
        grads["t = 1"].abs().max().item(),
    )


@pytest.mark.parametrize(
    ("arg", "kwargs", "match"),
    [
        ({}, {}, "empty"),
        ({"a": None}, {}, "'a' is None"),
        ([("a", torch.ones(1)), ("a", torch.ones(1))], {}, "unique"),
        ({"a": torch.ones(0)}, {}, "non-empty"),
        ({"a": torch.ones(2)}, {"levels": (0.5, 0.1)}, "increasing"),
        ({"a": torch.ones(2)}, {"levels": (1.5,)}, r"\[0, 1\]"),
    ],
)
def test_gradient_stats_bad_input(arg, kwargs, match):
    with pytest.raises(ValueError, match=match):
        gradient_stats(arg, **kwargs)


# -- the MLP producer ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("activation", "residual", "layernorm", "wrt"),
    [
        ("sigmoid", False, False, "activation"),
        ("relu", True, False, "weight"),
        ("tanh", True, True, "activation"),
        ("relu", False, True, "weight"),
    ],
)
def test_mlp_producer_matches_torch_autograd(activation, residual, layernorm, wrt):
    depth, width, batch, classes, scale = 5, 8, 6, 3, 1.3
    got = mlp_gradient_flow(
        depth,
        activation,
        scale,
        residual,
        layernorm,
        width=width,
        batch=batch,
        n_classes=classes,
        seed=4,
        wrt=wrt,
    )
    # the same draws, documented order: x, y, W_out, W_1..W_L; then an nn-based rebuild
    gen = torch.Generator().manual_seed(4)
    x = torch.randn(batch, width, generator=gen, dtype=torch.float64)
    y = torch.randint(classes, (batch,), generator=gen)
    out = torch.nn.Linear(width, classes, bias=False).double()
    layers = torch.nn.ModuleList(
        torch.nn.Linear(width, width).double() for _ in range(depth)
    )
    norm = torch.nn.LayerNorm(width, elementwise_affine=False).double()
    with torch.no_grad():
        out.weight.copy_(
            torch.randn(classes, width, generator=gen, dtype=torch.float64)
        )
        out.weight.div_(math.sqrt(width))
        for layer in layers:
            w = torch.randn(width, width, generator=gen, dtype=torch.float64)
            layer.weight.copy_(w * scale / math.sqrt(width))
            layer.bias.zero_()
    act = {"sigmoid": torch.sigmoid, "tanh": torch.tanh, "relu": F.relu}[activation]
    h, hs = x, []
    for layer in layers:
        a = act(layer(norm(h) if layernorm else h))
        h = h + a if residual else a
        hs.append(h)
    loss = F.nll_loss(F.log_softmax(out(h), dim=-1), y)
    wanted = [layer.weight for layer in layers] if wrt == "weight" else hs
    want = torch.autograd.grad(loss, wanted)
    assert list(got) == [f"layer {l}" for l in range(1, depth + 1)]
    for g, w in zip(got.values(), want):
        torch.testing.assert_close(g, w, rtol=1e-10, atol=1e-14)
    stats = gradient_stats(got)
    np.testing.assert_allclose(stats.norms, [w.norm().item() for w in want], rtol=1e-10)


def test_mlp_producer_shows_vanishing_and_exploding_gradients():
    def ratio(*args):  # ‖∂J/∂h_1‖ / ‖∂J/∂h_L‖
        norms = gradient_stats(mlp_gradient_flow(16, *args)).norms
        return norms[0] / norms[-1]

    assert ratio("sigmoid", 1.0) < 1e-6  # σ' ≤ 1/4: vanishing
    assert ratio("relu", 1.0) < 0.1  # variance halves per layer
    assert 0.3 < ratio("relu", math.sqrt(2)) < 3  # He initialisation: stable
    assert ratio("relu", 2.0) > 100  # exploding
    assert 0.3 < ratio("relu", 1.0, True, True) < 10  # residual + LayerNorm: mild
    a, b = mlp_gradient_flow(4, seed=1), mlp_gradient_flow(4, seed=1)
    assert all(torch.equal(a[k], b[k]) for k in a)  # deterministic


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"depth": 0}, "depth"),
        ({"depth": 2, "activation": "gelu"}, "activation"),
        ({"depth": 2, "init_scale": 0.0}, "init_scale"),
        ({"depth": 2, "wrt": "bias"}, "wrt"),
    ],
)
def test_mlp_producer_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        mlp_gradient_flow(**kwargs)


# -- traits: every state precomputed -----------------------------------------------------
def test_every_control_combination_is_precomputed(mlp_widget):
    w = mlp_widget
    names = [c["name"] for c in w.controls]
    assert names == ["depth", "activation", "init_scale", "residual", "layernorm"]
    options = [c["options"] for c in w.controls]
    assert options[0] == ["4", "8", "16", "32"] and options[1] == list(MLP_ACTIVATIONS)
    assert options[2] == ["0.5", "1", "√2", "2"] and options[3] == ["off", "on"]
    grid = {"|".join(p) for p in itertools.product(*options)}
    assert set(w.states) == grid and len(grid) == 4 * 3 * 4 * 2 * 2
    for key, state in w.states.items():
        depth = int(key.split("|")[0])
        assert w.name_lists[state["n"]] == [f"layer {l}" for l in range(1, depth + 1)]
        assert len(state["norm"]) == len(state["q"]) == depth
        assert all(len(row) == len(QUANTILES) for row in state["q"])
    assert w.selection == {
        "depth": "16",
        "activation": "sigmoid",
        "init_scale": "1",
        "residual": "off",
        "layernorm": "off",
    }
    # a state's traits are the rounded log10 of the unrounded stats it came from
    s = w.stats({"activation": "relu", "residual": True})
    state = w.states[w.key({"activation": "relu", "residual": True})]
    np.testing.assert_allclose(state["norm"], np.log10(s.norms), atol=5e-3)
    assert all(round(v, 2) == v for v in state["norm"])  # decimals=2: 2 % precision
    lo, hi = w.y_range
    assert lo == math.floor(lo) and -40 < lo < -20 and 5 < hi < 15
    assert len(json.dumps(w.html_state(), ensure_ascii=False)) < 200_000


def test_generic_family_with_one_control_and_named_time_steps(html):
    states = {cell: _rnn_like(seed=i) for i, cell in enumerate(["RNN", "LSTM", "GRU"])}
    w = GradientFlowExplorer(states, title="BPTT", x_label="time step")
    assert w.controls == [
        {"name": "setting", "label": "setting", "options": ["RNN", "LSTM", "GRU"]}
    ]
    assert w.selection == {"setting": "RNN"} and w.name_lists[0][0] == "t = 1"
    w.selection = {"setting": "GRU"}
    assert w.stats().names == tuple(states["GRU"])
    with pytest.raises(Exception, match="not one of"):
        w.selection = {"setting": "Transformer"}
    assert "3 settings" in w._plain_text()


def test_precomputed_stats_and_mixed_key_types(html):
    stats = gradient_stats(_rnn_like())
    states = {(n, flag): stats for n in (1, 2) for flag in (False, True)}
    w = GradientFlowExplorer(
        states, {"n": [1, 2], "clip": [False, True]}, selection={"clip": True}
    )
    assert set(w.states) == {"1|off", "1|on", "2|off", "2|on"}
    assert w.selection == {"n": "1", "clip": "on"}
    assert isinstance(w.stats(), GradientStats)
    w.selection = {"n": 2}  # a partial selection keeps the other controls
    assert w.selection == {"n": "2", "clip": "on"} and w.key() == "2|on"


@pytest.mark.parametrize(
    ("states", "controls", "match"),
    [
        ({1: _rnn_like()}, {"n": [1, 2]}, r"missing \['2'\]"),
        ({1: _rnn_like(), 3: _rnn_like()}, {"n": [1]}, "3 is not an option"),
        ({(1, 2): _rnn_like()}, {"n": [1]}, "one option per control"),
        ({1: _rnn_like()}, {"n": [1, 1]}, "distinct"),
        ({}, None, "non-empty"),
    ],
)
def test_widget_validation(html, states, controls, match):
    with pytest.raises(ValueError, match=match):
        GradientFlowExplorer(states, controls)
    with pytest.raises(ValueError, match="unknown control"):
        GradientFlowExplorer({1: _rnn_like()}, {"n": [1]}, selection={"m": 1})


# -- display ------------------------------------------------------------------------------
def _script(page: str, suffix: str):
    pattern = rf'<script type="application/json" id="[^"]+{suffix}">(.*?)</script>'
    match = re.search(pattern, page, re.S)
    assert match, f"no {suffix} block"
    return json.loads(match.group(1))


def test_html_bundle_is_self_contained(mlp_widget):
    assert mlp_widget.comm is None
    page = mlp_widget._repr_mimebundle_()["text/html"]
    state = _script(page, "-state")
    assert state["states"] == mlp_widget.states and state["_kernel"] is False
    assert state["selection"] == mlp_widget.selection and "_esm" not in state
    assert _script(page, "-esm") == js_source("gradient_flow")
    assert page.count("</script") == 3
    assert "http://" not in page and "https://" not in page
    assert not re.search(r"<script[^>]*\bsrc=", page, re.I)


def test_live_bundle_is_the_widget_view(monkeypatch):
    monkeypatch.delenv("COURSE_WIDGET_MODE", raising=False)
    w = GradientFlowExplorer({"a": _rnn_like()})
    data = w._repr_mimebundle_()
    data = data[0] if isinstance(data, tuple) else data
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == w.model_id


def test_static_figure_compares_fixed_settings(mlp_widget):
    fig = mlp_widget.static_figure()
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0].startswith("activation sigmoid") and "residual on" in titles[2]
    assert "depth 16" in fig._suptitle.get_text()
    assert all(ax.get_yscale() == "log" for ax in fig.axes)
    assert len({ax.get_ylim() for ax in fig.axes}) == 1  # one shared y axis
    one = mlp_widget.static_figure([{"depth": 4}])
    assert len(one.axes) == 1 and "depth 4" in one.axes[0].get_title()


# -- the controls in a real browser ---------------------------------------------------------
def test_playwright_drives_the_controls(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_WIDGET_MODE", "html")
    w = mlp_gradient_flow_explorer(depths=(4, 16), init_scales={"1": 1.0, "2": 2.0})
    url = write_widget_page(tmp_path / "gradient_flow.html", w)
    with offline_page() as browser:
        page = browser.page
        page.goto(url)
        widget = page.locator(".cw-gf")
        cols = widget.locator(".cw-gf-col")
        cols.first.wait_for()

        def norms() -> list[float]:  # the log10 norms the bars were drawn from
            return [
                float(v)
                for v in cols.evaluate_all(
                    "cs => cs.map(c => c.getAttribute('data-norm'))"
                )
            ]

        def heights() -> list[float]:  # where the norm dots are drawn
            return widget.locator("circle.cw-gf-norm").evaluate_all(
                "cs => cs.map(c => Number(c.getAttribute('cy')))"
            )

        def pick(control: str, option: str) -> None:
            fieldset = widget.locator("fieldset", has_text=control)
            fieldset.get_by_text(option, exact=True).click()

        assert cols.count() == 16  # depth 16, sigmoid
        sigmoid = heights()
        assert norms() == w.states["16|sigmoid|1|off|off"]["norm"]
        assert sigmoid[0] > sigmoid[-1] + 100  # vanishing: layer 1 drawn far lower

        pick("activation", "relu")
        assert (
            widget.locator("fieldset", has_text="activation")
            .locator("input:checked")
            .get_attribute("value")
            == "relu"
        )
        assert norms() == w.states["16|relu|1|off|off"]["norm"]
        assert heights() != sigmoid

        pick("depth", "4")
        assert cols.count() == 4
        assert norms() == w.states["4|relu|1|off|off"]["norm"]

        pick("init scale", "2")
        pick("residual", "on")
        assert norms() == w.states["4|relu|2|on|off"]["norm"]

        # hover and keyboard: the readout names the layer and its norm
        cols.nth(1).hover()
        readout = widget.locator(".cw-gf-readout")
        assert readout.inner_text().startswith("layer 2: ‖g‖ = ")
        widget.locator("svg").focus()
        page.keyboard.press("ArrowRight")
        assert readout.inner_text().startswith("layer 3: ")
        page.keyboard.press("End")
        assert readout.inner_text().startswith("layer 4: ")

        # the shared axis (on here) unticked fits the tick labels to the one setting
        ticks = lambda: widget.locator("text.cw-gf-axis").all_inner_texts()  # noqa: E731
        before = ticks()
        widget.get_by_label("same y axis for every setting").uncheck()
        assert ticks() != before

        # the radio groups are keyboard-usable and keep JupyterLab's shortcuts off
        widget.locator("fieldset", has_text="depth").locator("input:checked").focus()
        page.keyboard.press("ArrowRight")
        assert cols.count() == 16
        assert unsuppressed_controls(page) == []
    assert_offline(browser)
