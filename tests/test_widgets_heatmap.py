"""HeatmapExplorer: precomputed rounded traits, validation, html/live bundles, figure."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from course_lib.widgets import HeatmapExplorer
from course_lib.widgets.base import js_source

WORDS = ["king", "queen", "man"]


def _mats(n: int = 3, shape: tuple[int, int] = (3, 3)) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {f"k={k + 1}": rng.normal(size=shape) for k in range(n)}


def _script(bundle_html: str, suffix: str):
    match = re.search(
        rf'<script type="application/json" id="[^"]+{suffix}">(.*?)</script>',
        bundle_html,
        re.S,
    )
    assert match, f"no {suffix} block"
    return json.loads(match.group(1))


# -- traits ----------------------------------------------------------------------------
def test_traits_hold_the_precomputed_rounded_matrices(live):
    mats = _mats()
    mats["k=2"] = torch.tensor(mats["k=2"])  # tensors and arrays mix
    w = HeatmapExplorer(mats, WORDS, title="similarity")
    assert w.names == ["k=1", "k=2", "k=3"]
    assert w.row_labels == w.col_labels == WORDS  # square: columns default to rows
    assert w.index == 0 and w.title == "similarity"
    want = np.round(np.stack([np.asarray(m) for m in mats.values()]), 3)
    np.testing.assert_array_equal(np.array(w.matrices), want)
    assert all(type(v) is float for v in w.matrices[1][2])  # plain JSON numbers
    assert w.value_range == [round(want.min(), 3), round(want.max(), 3)]
    np.testing.assert_array_equal(w.matrix("k=3"), want[2])
    np.testing.assert_array_equal(w.matrix(), want[0])


def test_the_slider_says_what_it_steps_through(html):
    assert HeatmapExplorer(_mats(), WORDS).slider_label == "Matrix"  # the default
    w = HeatmapExplorer(_mats(), WORDS, slider_label="rank k")
    page = w._repr_mimebundle_()["text/html"]
    assert _script(page, "-state")["slider_label"] == "rank k"  # the static page's


def test_list_with_names_labels_defaults_and_missing_values(live):
    a = np.array([[0.12345, np.nan], [1.0, 2.0], [3.0, 4.0]])
    w = HeatmapExplorer([a, a * 2], names=["L0H0", "L0H1"], value_range=(0, 10))
    assert w.names == ["L0H0", "L0H1"]
    assert w.row_labels == ["0", "1", "2"] and w.col_labels == ["0", "1"]
    assert w.matrices[0][0] == [0.123, None]  # NaN travels as null
    assert w.value_range == [0.0, 10.0]
    assert np.isnan(w.matrix(1)[0, 1])
    w.index = 1
    with pytest.raises(Exception, match=r"index must be in 0\.\.1"):
        w.index = 2


def test_a_stacked_tensor_is_a_list_of_matrices(live):
    heads = torch.rand(4, 2, 3)  # (M, R, C): e.g. one layer's heads
    w = HeatmapExplorer(heads, ["a", "b"], ["x", "y", "z"], names=list("ABCD"))
    assert np.array(w.matrices).shape == (4, 2, 3)
    np.testing.assert_allclose(w.matrix("D"), heads[3].numpy(), atol=5e-4)


def test_decimals_and_constant_matrix_range(live):
    w = HeatmapExplorer({"one": np.full((2, 2), 0.5)}, decimals=1)
    assert w.matrices == [[[0.5, 0.5], [0.5, 0.5]]]
    assert w.value_range == [0.0, 1.0]  # a constant matrix still gets a scale


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        (({"a": np.zeros((2, 2)), "b": np.zeros((2, 3))},), {}, r"expected \(2, 2\)"),
        (({"a": np.zeros((2, 2))}, ["x"]), {}, "row_labels.*expected 2.*got 1"),
        (({"a": np.zeros((2, 3))}, None, list("abcd")), {}, "expected 3.*got 4"),
        (([np.zeros((2, 2))],), {"names": ["a", "b"]}, "expected 1, got 2"),
        (({"a": np.zeros((2, 2))},), {"names": ["a"]}, "names only with a list"),
        (([np.zeros((2, 2))] * 2,), {"names": ["a", "a"]}, "unique"),
        (({},), {}, "empty"),
        (({"a": np.zeros(3)},), {}, r"'a' must be 2-D.*\(3,\)"),
        (({"a": np.zeros((2, 2))},), {"index": 1}, r"index must be in 0\.\.0"),
        (({"a": np.zeros((2, 2))},), {"value_range": (1, 0)}, "vmin < vmax"),
    ],
)
def test_validation_names_expected_and_got(live, args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        HeatmapExplorer(*args, **kwargs)


def test_non_numeric_matrix_is_a_type_error(live):
    with pytest.raises(TypeError, match="numeric"):
        HeatmapExplorer({"a": [["x", "y"]]})
    with pytest.raises(TypeError, match="dict"):
        HeatmapExplorer(42)


# -- display bundles -------------------------------------------------------------------
def test_html_bundle_is_self_contained(html):
    title = "a </script><!-- <script> & 'quotes'"
    w = HeatmapExplorer(_mats(), ["</script>", "queen", "<!--"], title=title)
    assert w.comm is None  # no comm: no widget-manager state in the notebook
    bundle = w._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}
    page = bundle["text/html"]
    state = _script(page, "-state")
    assert state["matrices"] == w.matrices and state["names"] == w.names
    assert state["row_labels"] == ["</script>", "queen", "<!--"]
    assert state["title"] == title and state["index"] == 0
    assert state["_kernel"] is False  # the JS hides kernel-only controls
    assert "_esm" not in state  # the module travels once, in its own block
    assert _script(page, "-esm") == js_source("heatmap")
    assert "export default" in page  # the module's own text, JSON-escaped
    # exactly our three closing tags; no data or module text can end a script early
    assert page.count("</script") == 3 and page.lower().count("</script") == 3
    assert "<!--" not in page
    assert not re.search(r"<script[^>]*\bsrc=", page, re.I)
    assert "https://" not in json.dumps(bundle) and "http://" not in page
    assert "HeatmapExplorer" in bundle["text/plain"]


def test_html_ids_are_unique_and_deterministic_in_content(html):
    w = HeatmapExplorer(_mats(), WORDS)
    ids = [re.search(r'<div[^>]* id="([^"]+)"', w.to_html()).group(1) for _ in range(2)]
    assert ids[0] != ids[1]
    assert ids[0].rsplit("-", 1)[0] == ids[1].rsplit("-", 1)[0]  # same content hash


def test_live_bundle_is_the_widget_view(live):
    w = HeatmapExplorer(_mats(), WORDS)
    data = w._repr_mimebundle_()
    data = data[0] if isinstance(data, tuple) else data
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == w.model_id
    assert "text/html" not in data
    assert w.comm is not None and w._kernel is True


def test_unknown_mode_is_an_error(monkeypatch):
    monkeypatch.setenv("COURSE_WIDGET_MODE", "static")
    with pytest.raises(ValueError, match="live, html.*'static'"):
        HeatmapExplorer(_mats(), WORDS)


# -- static figure ---------------------------------------------------------------------
def test_static_figure_single_matrix_is_annotated(live):
    fig = HeatmapExplorer({"only": np.eye(3)}, WORDS, title="t").static_figure()
    assert isinstance(fig, Figure)
    heat, bar = fig.axes
    assert len(heat.texts) == 9 and heat.get_title() == "only"
    assert [t.get_text() for t in heat.get_yticklabels()] == WORDS


def test_static_figure_small_multiples_include_the_current_matrix(live):
    w = HeatmapExplorer(_mats(n=7), WORDS, index=2)
    fig = w.static_figure()
    panels = fig.axes[:-1]  # the last axes is the shared colour bar
    assert len(panels) == 4
    titles = [ax.get_title() for ax in panels]
    assert "▶ k=3" in titles and titles[0] == "k=1" and titles[-1] == "k=7"
    assert all(ax.images[0].get_clim() == tuple(w.value_range) for ax in panels)
    assert len(HeatmapExplorer(_mats(n=2), WORDS).static_figure().axes) == 3
