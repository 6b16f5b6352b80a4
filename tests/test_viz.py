"""course_lib.viz: each figure's artists and labels, PCA parity with numpy, bad shapes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.axes import Axes

from course_lib import viz

plt.switch_backend("agg")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# -- heatmap ---------------------------------------------------------------------------
def test_heatmap_image_labels_and_colorbar():
    m = np.arange(12.0).reshape(3, 4)
    ax = viz.heatmap(m, ["a", "b", "c"], ["w", "x", "y", "z"], title="T")
    assert isinstance(ax, Axes)
    assert len(ax.images) == 1
    np.testing.assert_array_equal(ax.images[0].get_array(), m)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["w", "x", "y", "z"]
    assert ax.get_title() == "T"
    assert len(ax.figure.axes) == 2  # the heatmap and its colour bar
    assert len(ax.texts) == 0


def test_heatmap_annotate_vrange_and_no_colorbar_on_given_axes():
    fig, ax = plt.subplots()
    out = viz.heatmap(
        torch.eye(3), annotate=True, vmin=-1, vmax=1, colorbar=False, ax=ax
    )
    assert out is ax
    assert len(fig.axes) == 1
    assert [t.get_text() for t in ax.texts] == [
        "1.00" if i == j else "0.00" for i in range(3) for j in range(3)
    ]
    assert ax.images[0].get_clim() == (-1, 1)


def test_heatmap_annotation_contrast_follows_the_colour():
    ax = viz.heatmap(np.array([[0.0, 1.0]]), annotate=True, colorbar=False)
    dark_cell, bright_cell = ax.texts  # viridis: 0 is dark purple, 1 is yellow
    assert dark_cell.get_color() == "white" and bright_cell.get_color() == "black"


@pytest.mark.parametrize(
    ("matrix", "rows", "cols", "match"),
    [
        (np.zeros(3), None, None, r"2-D .*got shape \(3,\)"),
        (np.zeros((2, 3)), ["a"], None, "row_labels.*expected 2, got 1"),
        (np.zeros((2, 3)), None, ["a", "b"], "col_labels.*expected 3, got 2"),
    ],
)
def test_heatmap_rejects_bad_shapes(matrix, rows, cols, match):
    with pytest.raises(ValueError, match=match):
        viz.heatmap(matrix, rows, cols)


# -- training curves -------------------------------------------------------------------
def test_training_curves_dict_one_line_per_series():
    history = {"train_loss": [2.0, 1.5, 1.0], "valid_loss": [2.1, 1.8]}
    ax = viz.training_curves(history, title="loss")
    assert [line.get_label() for line in ax.lines] == ["train_loss", "valid_loss"]
    np.testing.assert_array_equal(ax.lines[0].get_xdata(), [1, 2, 3])
    np.testing.assert_array_equal(ax.lines[1].get_ydata(), [2.1, 1.8])
    assert len(ax.get_legend().get_texts()) == 2
    assert ax.get_xlabel() == "epoch" and ax.get_title() == "loss"
    assert ax.get_yscale() == "linear"


def test_training_curves_records_use_step_as_x_and_gaps_for_missing():
    records = [
        {"step": 10, "train_loss": 3.0},
        {"step": 20, "train_loss": 2.0, "valid_loss": 2.5},
    ]
    ax = viz.training_curves(records, logy=True)
    assert [line.get_label() for line in ax.lines] == ["train_loss", "valid_loss"]
    np.testing.assert_array_equal(ax.lines[0].get_xdata(), [10, 20])
    assert np.isnan(ax.lines[1].get_ydata()[0])
    assert ax.get_xlabel() == "step" and ax.get_yscale() == "log"


@pytest.mark.parametrize(
    ("history", "error"),
    [({}, ValueError), ([], ValueError), ([1.0, 2.0], TypeError), ("loss", TypeError)],
)
def test_training_curves_rejects_bad_history(history, error):
    with pytest.raises(error):
        viz.training_curves(history)


def test_training_curves_rejects_nested_series():
    with pytest.raises(ValueError, match="flat list"):
        viz.training_curves({"loss": [[1.0, 2.0]]})


# -- project_2d ------------------------------------------------------------------------
def _numpy_pca(x: np.ndarray) -> np.ndarray:
    centred = x - x.mean(axis=0)
    eigval, eigvec = np.linalg.eigh(np.cov(centred, rowvar=False))
    top = eigvec[:, np.argsort(eigval)[::-1][:2]]
    return centred @ top


def test_project_2d_matches_numpy_pca_up_to_sign():
    x = np.random.default_rng(0).normal(size=(30, 6)) * [5, 3, 1, 0.5, 0.2, 0.1]
    got = viz.project_2d(x)
    want = _numpy_pca(x)
    assert got.shape == (30, 2)
    for j in range(2):
        sign = np.sign(want[:, j] @ got[:, j])
        np.testing.assert_allclose(got[:, j], sign * want[:, j], atol=1e-10)
        pivot = np.argmax(np.abs(got[:, j]))
        assert got[pivot, j] > 0  # the sign convention
    # deterministic, and the same for a tensor (float32 tolerance) and a flipped input
    np.testing.assert_array_equal(viz.project_2d(x), got)
    np.testing.assert_allclose(
        viz.project_2d(torch.tensor(x, dtype=torch.float32)), got, atol=1e-4
    )
    np.testing.assert_allclose(viz.project_2d(-x), got, atol=1e-10)


def test_project_2d_low_rank_pads_zeros_and_rejects_bad_input():
    np.testing.assert_allclose(viz.project_2d([[0.0], [2.0]]), [[-1, 0], [1, 0]])
    with pytest.raises(ValueError, match=r"2-D \(N, D\)"):
        viz.project_2d(np.zeros(5))
    with pytest.raises(ValueError, match="method"):
        viz.project_2d(np.zeros((3, 3)), method="tsne")


# -- embedding scatter -----------------------------------------------------------------
WORDS = ["king", "queen", "man", "woman", "paris", "france"]


def test_embedding_scatter_points_labels_and_highlight():
    points = viz.project_2d(np.random.default_rng(1).normal(size=(6, 8)))
    ax = viz.embedding_scatter(points, WORDS, highlight=["king", 1], title="E")
    assert [t.get_text() for t in ax.texts] == WORDS
    assert len(ax.collections) == 2  # plain and highlighted points
    assert [len(c.get_offsets()) for c in ax.collections] == [4, 2]
    colours = {t.get_text(): t.get_color() for t in ax.texts}
    assert colours["king"] == colours["queen"] == viz.HIGHLIGHT_COLOUR
    assert colours["man"] == "black"
    assert ax.get_title() == "E"


def test_embedding_scatter_is_deterministic_and_spreads_close_labels():
    points = np.array([[0.0, 0.0], [0.01, 0.0], [0.0, 0.01], [1.0, 1.0]])
    first = viz.embedding_scatter(points, ["aaaa", "bbbb", "cccc", "dddd"])
    again = viz.embedding_scatter(points, ["aaaa", "bbbb", "cccc", "dddd"])
    offsets = [t.xyann for t in first.texts]
    assert offsets == [t.xyann for t in again.texts]
    assert len(set(offsets[:3])) == 3  # three crowded points, three directions
    assert len(first.collections) == 1


@pytest.mark.parametrize(
    ("points", "labels", "highlight", "match"),
    [
        (np.zeros((3, 3)), ["a", "b", "c"], None, r"\(N, 2\).*project_2d"),
        (np.zeros((3, 2)), ["a", "b"], None, "expected 3, got 2"),
        (np.zeros((2, 2)), ["a", "b"], ["z"], "'z' is not among"),
        (np.zeros((2, 2)), ["a", "b"], [5], "out of range"),
    ],
)
def test_embedding_scatter_rejects_bad_input(points, labels, highlight, match):
    with pytest.raises(ValueError, match=match):
        viz.embedding_scatter(points, labels, highlight=highlight)


def test_heatmap_writes_counts_without_decimals_when_asked():
    counts = np.array([[30.0, 0.0], [2.0, 27.0]])
    ax = viz.heatmap(counts, annotate=True, fmt=".0f", colorbar=False)
    assert [t.get_text() for t in ax.texts] == ["30", "0", "2", "27"]


def test_accuracy_by_size_draws_runs_accuracy_and_each_seed():
    from course_lib.compare import runs_accuracy

    rng = np.random.default_rng(0)
    runs = [rng.random((3, 50)) < p for p in (0.5, 0.7, 0.9)]  # (seeds, items) each
    fig, ax = plt.subplots()
    viz.accuracy_by_size(ax, [10, 100, 1000], runs, color="C0", label="model")
    bars = ax.containers[0]  # the error bars: the means, and ± 2 SE around them
    means = bars.lines[0].get_ydata()
    expected = [runs_accuracy(r) for r in runs]
    np.testing.assert_allclose(means, [m for m, _ in expected])
    tops = bars.lines[2][0].get_segments()
    np.testing.assert_allclose(
        [s[1][1] - s[0][1] for s in tops], [4 * se for _, se in expected]
    )
    dots = [line.get_ydata() for line in ax.lines if line.get_linestyle() == "None"]
    np.testing.assert_allclose(
        np.concatenate(dots[-3:]), np.concatenate([r.mean(1) for r in runs])
    )
    with pytest.raises(ValueError, match="3 sizes, 2"):
        viz.accuracy_by_size(ax, [10, 100, 1000], runs[:2], color="C0", label="x")
    plt.close(fig)
