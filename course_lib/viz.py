"""Static matplotlib figures shared by every chapter: heatmaps, training curves, embeddings.

These are the figures the prose refers to and the fallback wherever scripts cannot run (an
untrusted notebook, a PDF). The interactive views live in ``course_lib.widgets``; this module
imports no widget code. Every function takes a torch tensor or a numpy array, draws into ``ax``
(a new figure when ``None``) and returns the Axes. Output is deterministic: no random jitter.

Shape legend: N points (words), D vector width, R rows, C columns.
Chapters: 1 (word vectors, similarity matrices), every chapter's training curves, 7-8 (attention).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator

from course_lib.compare import runs_accuracy

__all__ = [
    "accuracy_by_size",
    "embedding_scatter",
    "heatmap",
    "project_2d",
    "training_curves",
]

HIGHLIGHT_COLOUR = "#d62728"
POINT_COLOUR = "#1f77b4"


def _as_array(x: Any, name: str) -> np.ndarray:
    """A float64 numpy copy of a tensor, array or nested list (no in-place edits of inputs)."""
    if hasattr(x, "detach"):  # torch.Tensor, without importing torch here
        x = x.detach().cpu().numpy()
    try:
        return np.array(x, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise TypeError(
            f"{name} must be a numeric torch tensor or numpy array; got {type(x).__name__}"
        ) from err


def _new_axes(ax: Axes | None, figsize: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    _, ax = plt.subplots(figsize=figsize)
    return ax


def heatmap(
    matrix: Any,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    *,
    ax: Axes | None = None,
    cmap: str = "viridis",
    title: str | None = None,
    annotate: bool = False,
    fmt: str = ".2f",
    vmin: float | None = None,
    vmax: float | None = None,
    colorbar: bool = True,
    xlabel: str | None = None,
    ylabel: str | None = None,
    cbar_label: str | None = None,
) -> Axes:
    """Draw a matrix as a coloured grid with row and column labels. Chapters 1, 7, 8.

    matrix: (R, C) tensor or array (NaN cells stay blank); row_labels: R strings;
    col_labels: C strings (``None``: the axis shows indices, a few of them, not one per
    cell). ``annotate`` writes each value into its cell in the format ``fmt`` (``".0f"``
    for counts), in black or white for contrast. ``vmin``/``vmax`` fix the colour scale
    (shared scales make several heatmaps comparable). ``xlabel``/``ylabel`` name what the
    columns and rows are, ``cbar_label`` what the colours measure (book/writing.md: every
    axis with ticks has a label). A new figure is at most 7 inches wide: the page's column.
    Returns the Axes, holding one image (``ax.images``) and, with ``annotate``, R·C texts.
    """
    m = _as_array(matrix, "matrix")
    if m.ndim != 2:
        raise ValueError(f"matrix must be 2-D (R, C); got shape {tuple(m.shape)}")
    n_rows, n_cols = m.shape
    if row_labels is not None and len(row_labels) != n_rows:
        raise ValueError(
            f"row_labels needs one label per row: expected {n_rows}, got {len(row_labels)}"
        )
    if col_labels is not None and len(col_labels) != n_cols:
        raise ValueError(
            f"col_labels needs one label per column: expected {n_cols}, "
            f"got {len(col_labels)}"
        )
    width = min(7.0, max(3.0, 0.45 * n_cols + 2.0))
    ax = _new_axes(ax, (width, min(7.0, max(2.5, 0.4 * n_rows + 1.5))))
    image = ax.imshow(m, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    if col_labels is not None:
        rotate = max((len(str(c)) for c in col_labels), default=0) > 2
        ax.set_xticks(np.arange(n_cols))
        ax.set_xticklabels([str(c) for c in col_labels], rotation=90 if rotate else 0)
    else:  # a few indices, as many as the axis has room for
        ax.xaxis.set_major_locator(MaxNLocator(nbins="auto", integer=True))
    if row_labels is not None:
        ax.set_yticks(np.arange(n_rows))
        ax.set_yticklabels([str(r) for r in row_labels])
    else:
        ax.yaxis.set_major_locator(MaxNLocator(nbins="auto", integer=True))
    ax.tick_params(length=0)
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if annotate:
        norm, colours = image.norm, image.cmap
        for (i, j), value in np.ndenumerate(m):
            if not math.isfinite(value):
                ax.text(j, i, "", ha="center", va="center")
                continue
            r, g, b, _ = colours(norm(value))
            dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
            ax.text(
                j,
                i,
                format(value, fmt),
                ha="center",
                va="center",
                fontsize=8,
                color="white" if dark else "black",
            )
    if colorbar:
        bar = ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        if cbar_label:
            bar.set_label(cbar_label)
    if title:
        ax.set_title(title)
    return ax


def _history_series(
    history: Mapping[str, Sequence[float]] | Sequence[Mapping[str, float]],
) -> tuple[dict[str, np.ndarray], np.ndarray | None, str]:
    """Turn either history layout into {name: values}, an optional shared x, its label."""
    if isinstance(history, Mapping):
        series = {str(k): _as_array(v, f"history[{k!r}]") for k, v in history.items()}
        x_key = None
    elif isinstance(history, Sequence) and not isinstance(history, str):
        if not all(isinstance(rec, Mapping) for rec in history):
            raise TypeError("history as a list must hold one dict per epoch or step")
        keys: list[str] = []
        for rec in history:
            keys += [str(k) for k in rec if str(k) not in keys]
        try:
            series = {
                k: np.array([float(rec.get(k, np.nan)) for rec in history])
                for k in keys
            }
        except (TypeError, ValueError) as err:
            raise TypeError(f"history records must hold numbers only: {err}") from err
        x_key = next((k for k in ("epoch", "step") if k in series), None)
    else:
        raise TypeError(
            "history must be a dict of lists or a list of dicts; "
            f"got {type(history).__name__}"
        )
    for name, values in series.items():
        if values.ndim != 1:
            raise ValueError(
                f"history[{name!r}] must be a flat list of numbers; "
                f"got shape {values.shape}"
            )
    x = series.pop(x_key) if x_key is not None else None
    if not series or all(v.size == 0 for v in series.values()):
        raise ValueError("history holds no values to plot")
    return series, x, x_key or "epoch"


def training_curves(
    history: Mapping[str, Sequence[float]] | Sequence[Mapping[str, float]],
    *,
    ax: Axes | None = None,
    logy: bool = False,
    title: str | None = None,
    ylabel: str | None = None,
) -> Axes:
    """Plot one line per recorded series (train/valid loss, accuracy ...). Every chapter.

    history: either ``{"train_loss": [...], "valid_loss": [...]}`` (each series against
    1, 2, ... of its own length) or ``[{"epoch": 1, "train_loss": ...}, ...]`` (one dict
    per epoch or step; an ``epoch`` or ``step`` key becomes the x axis, a missing value a
    gap). ``logy`` puts the y axis on a log scale; ``ylabel`` names what the series measure
    (with its unit).
    Returns the Axes, holding one line per series and a legend.
    """
    series, x, x_label = _history_series(history)
    ax = _new_axes(ax, (5.5, 3.5))
    for name, values in series.items():
        xs = x if x is not None else np.arange(1, len(values) + 1)
        marker = "o" if len(values) <= 30 else None
        ax.plot(xs, values, label=name, marker=marker, markersize=3)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(x_label)
    if ylabel:
        ax.set_ylabel(ylabel)
    if x is None or np.all(np.mod(x[np.isfinite(x)], 1) == 0):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    ax.grid(True, alpha=0.3)
    ax.legend()
    if title:
        ax.set_title(title)
    return ax


def project_2d(vectors: Any, method: str = "pca") -> np.ndarray:
    """Project vectors to 2-D with PCA: the centred data's top two singular directions.

    vectors: (N, D) tensor or array. Centre X to X̄ = X - mean(X); with the SVD
    X̄ = U S Vᵀ the coordinates are X̄ V[:, :2] = U[:, :2] S[:2] (Pearson 1901; the
    Chapter 1 view of word vectors). Sign convention, so the figure is the same on every
    machine: in each output column the entry of largest absolute value is positive.
    When D or N - 1 is below 2 the missing column is zeros.
    Returns a float64 numpy array (N, 2).
    """
    if method != "pca":
        raise ValueError(f"method must be 'pca'; got {method!r}")
    x = _as_array(vectors, "vectors")
    if x.ndim != 2 or x.shape[0] == 0:
        raise ValueError(
            f"vectors must be 2-D (N, D) with N >= 1; got {tuple(x.shape)}"
        )
    centred = x - x.mean(axis=0, keepdims=True)  # (N, D)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)  # (N, K), (K,)
    coords = np.zeros((x.shape[0], 2))  # (N, 2)
    k = min(2, s.size)
    coords[:, :k] = u[:, :k] * s[:k]
    for j in range(2):
        pivot = int(np.argmax(np.abs(coords[:, j])))
        if coords[pivot, j] < 0:
            coords[:, j] = -coords[:, j]
    return coords + 0.0  # turns -0.0 into 0.0


_OFFSETS = ((1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0), (0, 1), (0, -1))


def _label_box(x: float, y: float, dx: int, dy: int, w: float, h: float, gap: float):
    """The (x0, y0, x1, y1) box a label of size w×h takes when placed towards (dx, dy)."""
    x0 = x + gap if dx > 0 else (x - gap - w if dx < 0 else x - w / 2)
    y0 = y + gap if dy > 0 else (y - gap - h if dy < 0 else y - h / 2)
    return x0, y0, x0 + w, y0 + h


def _overlap(a, b) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(
        0.0, min(a[3], b[3]) - max(a[1], b[1])
    )


def _place_labels(
    unit: np.ndarray, sizes: list[tuple[float, float]], gap: float, margin: float
):
    """Greedy, deterministic choice of an offset direction for each label.

    unit: (N, 2) points scaled to the unit square; sizes: each label's (w, h) in the same
    units; the frame spans [-margin, 1 + margin]. Crowded points choose first; each label
    takes the direction whose box overlaps the least with boxes already placed, with other
    points and with the frame's edge.
    """
    lo, hi = -margin, 1.0 + margin
    n = len(unit)
    dist = np.linalg.norm(unit[:, None, :] - unit[None, :, :], axis=-1)  # (N, N)
    crowding = (dist < 0.1).sum(axis=1)
    order = sorted(range(n), key=lambda i: (-crowding[i], i))
    placed: list[tuple[float, float, float, float]] = []
    choice: dict[int, tuple[int, int]] = {}
    for i in order:
        (x, y), (w, h) = unit[i], sizes[i]
        best, best_cost = _OFFSETS[0], math.inf
        for dx, dy in _OFFSETS:
            box = _label_box(x, y, dx, dy, w, h, gap)
            cost = sum(_overlap(box, other) for other in placed)
            inside = (
                (unit[:, 0] > box[0])
                & (unit[:, 0] < box[2])
                & (unit[:, 1] > box[1])
                & (unit[:, 1] < box[3])
            )
            cost += w * h * 0.5 * int(inside.sum())
            outside = (
                max(0.0, lo - box[0])
                + max(0.0, box[2] - hi)
                + max(0.0, lo - box[1])
                + max(0.0, box[3] - hi)
            )
            cost += outside * h
            if cost < best_cost - 1e-12:
                best, best_cost = (dx, dy), cost
        choice[i] = best
        placed.append(_label_box(x, y, *best, w, h, gap))
    return [choice[i] for i in range(n)]


def embedding_scatter(
    points: Any,
    labels: Sequence[str],
    *,
    ax: Axes | None = None,
    highlight: Iterable[str] | Iterable[int] | None = None,
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
) -> Axes:
    """Scatter 2-D word vectors with a text label beside each point. Chapter 1 onwards.

    points: (N, 2) tensor or array, for example ``project_2d(vectors)``; labels: N strings.
    highlight: words (or integer indices) drawn in another colour, e.g. an analogy's four
    words. Labels are offset greedily and deterministically to overlap as little as they can.
    ``xlabel``/``ylabel`` name the two coordinates (e.g. "principal component 1").
    Returns the Axes: one scatter collection (two with ``highlight``) and N texts.
    """
    p = _as_array(points, "points")
    if p.ndim != 2 or p.shape[1] != 2:
        raise ValueError(
            f"points must have shape (N, 2); got {tuple(p.shape)} "
            "(project higher-dimensional vectors with project_2d first)"
        )
    labels = [str(label) for label in labels]
    if len(labels) != p.shape[0]:
        raise ValueError(
            f"labels needs one label per point: expected {p.shape[0]}, got {len(labels)}"
        )
    marked = np.zeros(len(labels), dtype=bool)
    if highlight is not None:
        index = {label: i for i, label in enumerate(labels)}
        for item in highlight:
            if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
                if not 0 <= item < len(labels):
                    raise ValueError(
                        f"highlight index {item} is out of range for {len(labels)} points"
                    )
                marked[int(item)] = True
            elif str(item) in index:
                marked[index[str(item)]] = True
            else:
                raise ValueError(f"highlight word {item!r} is not among the labels")
    ax = _new_axes(ax, (6.0, 5.0))
    ax.scatter(p[~marked, 0], p[~marked, 1], s=18, color=POINT_COLOUR, zorder=2)
    if marked.any():
        ax.scatter(p[marked, 0], p[marked, 1], s=30, color=HIGHLIGHT_COLOUR, zorder=3)
    # Estimate label sizes in unit-square coordinates from the axes' size in points.
    fontsize = 9.0
    dpi = ax.figure.dpi
    width_pt = max(ax.bbox.width * 72.0 / dpi, 1.0)
    height_pt = max(ax.bbox.height * 72.0 / dpi, 1.0)
    span = np.ptp(p, axis=0) if len(p) else np.ones(2)
    span = np.where(span > 0, span, 1.0)
    unit = (p - p.min(axis=0)) / span if len(p) else p
    margin = 0.12  # ax.margins: the frame spans [-margin, 1 + margin] in unit coords
    sx, sy = (1 + 2 * margin) / width_pt, (1 + 2 * margin) / height_pt  # per point
    sizes = [(0.6 * fontsize * len(label) * sx, fontsize * sy) for label in labels]
    gap_pt = 3.0
    directions = _place_labels(unit, sizes, gap_pt * sx, margin) if len(p) else []
    for i, (label, (dx, dy)) in enumerate(zip(labels, directions, strict=True)):
        ax.annotate(
            label,
            xy=(p[i, 0], p[i, 1]),
            xytext=(dx * gap_pt, dy * gap_pt),
            textcoords="offset points",
            ha={1: "left", -1: "right", 0: "center"}[dx],
            va={1: "bottom", -1: "top", 0: "center"}[dy],
            fontsize=fontsize,
            color=HIGHLIGHT_COLOUR if marked[i] else "black",
            fontweight="bold" if marked[i] else "normal",
        )
    ax.margins(margin)
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    return ax


def accuracy_by_size(
    ax: Axes, sizes: Sequence[float], runs: Sequence[Any], *, color: str, label: str
) -> Axes:
    """One system's accuracy against its training set's size (Chapter 9's key plot): at
    each size the mean over the seeds with two standard errors
    (:func:`~course_lib.compare.runs_accuracy`: the test items' noise and the seeds'), and
    each seed's run as a faint dot. ``runs[i]``: size i's (seeds, items) right or wrong."""
    if len(sizes) != len(runs) or not len(sizes):
        raise ValueError(f"one run array a size: {len(sizes)} sizes, {len(runs)}")
    stats = np.array([runs_accuracy(r) for r in runs])  # (sizes, 2): mean, SE
    bars = dict(color=color, marker="o", capsize=3, label=label)
    ax.errorbar(sizes, stats[:, 0], 2 * stats[:, 1], **bars)  # mean ± 2 SE
    for x, r in zip(sizes, runs):
        accs = _as_array(r, "runs").mean(1)  # (seeds,) each seed's accuracy
        ax.plot([x] * len(accs), accs, ".", color=color, alpha=0.4)
    return ax
