"""HeatmapExplorer: one heatmap view over a set of named matrices of the same shape.

Chapter 1 steps through word-similarity matrices at several SVD ranks k; Chapters 7-8 build
the attention heatmap on it (every layer × head, target tokens as rows, source tokens as
columns). All matrices are precomputed and rounded into the traits, so the slider works
without a kernel (``COURSE_WIDGET_MODE=html``). Front end: ``js/heatmap.js``.

Shape legend: M matrices, R rows, C columns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import traitlets as t
from matplotlib.figure import Figure

from course_lib import viz
from course_lib.widgets.base import CourseWidget, in_range, js_path, to_jsonable

__all__ = ["HeatmapExplorer"]


def _as_matrix(value: Any, name: str) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    try:
        m = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise TypeError(
            f"matrix {name!r} must be a numeric tensor or array; "
            f"got {type(value).__name__}"
        ) from err
    if m.ndim != 2:
        raise ValueError(f"matrix {name!r} must be 2-D (R, C); got shape {m.shape}")
    return m


class HeatmapExplorer(CourseWidget):
    """A heatmap over several named (R, C) matrices, one shown at a time.

    matrices: ``{name: (R, C) tensor or array}``, or a list of them with ``names``;
    row_labels: R strings (default ``0 … R-1``); col_labels: C strings (default: the row
    labels when R == C, else ``0 … C-1``). The colour scale ``value_range`` (vmin, vmax) is
    shared by all matrices, by default their overall finite minimum and maximum, so colours
    compare across the slider. Values are rounded to ``decimals`` places; ``slider_label``
    names what the slider steps through (Chapter 1's rank k).

    The view: a slider over the names, cells coloured on a viridis ramp, a readout
    "row · col = value" and the hovered row and column highlighted (arrow keys move a cursor
    over the grid). ``static_figure()`` draws the current matrix and up to three others.
    """

    _esm = js_path("heatmap")

    matrices = t.List(help="(M, R, C) rounded values; None for a missing value").tag(
        sync=True
    )
    names = t.List(t.Unicode(), help="M names, one per matrix").tag(sync=True)
    row_labels = t.List(t.Unicode(), help="R row labels").tag(sync=True)
    col_labels = t.List(t.Unicode(), help="C column labels").tag(sync=True)
    title = t.Unicode("").tag(sync=True)
    slider_label = t.Unicode("Matrix", help="the slider's label").tag(sync=True)
    value_range = t.List(t.Float(), default_value=[0.0, 1.0], minlen=2, maxlen=2).tag(
        sync=True
    )
    index = t.Int(0, help="the matrix on show").tag(sync=True)

    def __init__(
        self,
        matrices: Mapping[str, Any] | Sequence[Any],
        row_labels: Sequence[str] | None = None,
        col_labels: Sequence[str] | None = None,
        *,
        names: Sequence[str] | None = None,
        title: str = "",
        slider_label: str = "Matrix",
        value_range: tuple[float, float] | None = None,
        index: int = 0,
        decimals: int = 3,
    ) -> None:
        if isinstance(matrices, Mapping):
            if names is not None:
                raise ValueError(
                    "pass names only with a list of matrices; a dict's keys are the names"
                )
            names = [str(k) for k in matrices]
            arrays = list(matrices.values())
        elif isinstance(matrices, Sequence) or hasattr(matrices, "shape"):
            arrays = list(matrices)
            if names is None:
                names = [str(i) for i in range(len(arrays))]
            names = [str(n) for n in names]
            if len(names) != len(arrays):
                raise ValueError(
                    f"names needs one name per matrix: expected {len(arrays)}, "
                    f"got {len(names)}"
                )
        else:
            raise TypeError(
                "matrices must be a dict {name: matrix} or a list of matrices; "
                f"got {type(matrices).__name__}"
            )
        if not arrays:
            raise ValueError("matrices is empty; pass at least one (R, C) matrix")
        if len(set(names)) != len(names):
            raise ValueError(f"names must be unique; got {names}")
        mats = [_as_matrix(a, n) for a, n in zip(arrays, names, strict=True)]
        shape = mats[0].shape
        for m, n in zip(mats, names, strict=True):
            if m.shape != shape:
                raise ValueError(
                    f"all matrices must have the same shape: expected {shape} "
                    f"(from {names[0]!r}), got {m.shape} for {n!r}"
                )
        n_rows, n_cols = shape
        rows = self._labels(row_labels, n_rows, "row_labels", "row")
        if col_labels is None and row_labels is not None and n_rows == n_cols:
            cols = rows
        else:
            cols = self._labels(col_labels, n_cols, "col_labels", "column")
        if not 0 <= index < len(mats):
            raise ValueError(f"index must be in 0..{len(mats) - 1}; got {index}")
        values = np.stack(mats)  # (M, R, C)
        if value_range is None:
            finite = values[np.isfinite(values)]
            lo, hi = (
                (float(finite.min()), float(finite.max())) if finite.size else (0, 1)
            )
        else:
            if len(value_range) != 2 or not value_range[0] < value_range[1]:
                raise ValueError(
                    f"value_range must be (vmin, vmax) with vmin < vmax; got {value_range}"
                )
            lo, hi = float(value_range[0]), float(value_range[1])
        if lo == hi:  # a constant matrix still needs a scale
            lo, hi = lo - 0.5, hi + 0.5
        super().__init__(
            matrices=to_jsonable(values, decimals),
            names=names,
            row_labels=rows,
            col_labels=cols,
            title=str(title),
            slider_label=str(slider_label),
            value_range=[round(lo, decimals), round(hi, decimals)],
            index=int(index),
        )

    @staticmethod
    def _labels(labels: Sequence[str] | None, n: int, arg: str, what: str) -> list[str]:
        if labels is None:
            return [str(i) for i in range(n)]
        labels = [str(label) for label in labels]
        if len(labels) != n:
            raise ValueError(
                f"{arg} needs one label per {what}: expected {n} (the matrices are "
                f"{what}s × …), got {len(labels)}"
            )
        return labels

    @t.validate("index")
    def _check_index(self, proposal: dict) -> int:
        return in_range("index", proposal["value"], len(self.names))

    def matrix(self, name_or_index: str | int | None = None) -> np.ndarray:
        """The rounded (R, C) matrix as an array (NaN where a value is missing)."""
        i = self.index if name_or_index is None else name_or_index
        if isinstance(i, str):
            if i not in self.names:
                raise KeyError(f"no matrix named {i!r}; names are {self.names}")
            i = self.names.index(i)
        rows = [[np.nan if v is None else v for v in row] for row in self.matrices[i]]
        return np.array(rows, dtype=np.float64).reshape(
            len(self.row_labels), len(self.col_labels)
        )

    def _plain_text(self) -> str:
        r, c = len(self.row_labels), len(self.col_labels)
        shown = ", ".join(self.names[:6]) + (" …" if len(self.names) > 6 else "")
        return f"HeatmapExplorer({self.title!r}: {len(self.names)} matrices {r}×{c}: {shown})"

    def _panels(self, max_panels: int) -> list[int]:
        """The current matrix and evenly spaced others, at most ``max_panels``, in order."""
        n = len(self.names)
        if n <= max_panels:
            return list(range(n))
        picks = {int(round(x)) for x in np.linspace(0, n - 1, max_panels)}
        if self.index not in picks:
            nearest = min(
                picks - {0, n - 1} or picks, key=lambda p: abs(p - self.index)
            )
            picks = (picks - {nearest}) | {self.index}
        return sorted(picks)

    def static_figure(self, max_panels: int = 4) -> Figure:
        """The current matrix and up to ``max_panels - 1`` others, side by side.

        All panels share ``value_range`` and one colour bar; the current one is marked ▶.
        """
        panels = self._panels(max(1, int(max_panels)))
        r, c = len(self.row_labels), len(self.col_labels)
        w = max(2.8, 0.32 * c + 1.6)
        h = max(2.4, 0.3 * r + 1.4)
        fig = Figure(figsize=(w * len(panels) + 0.8, h), layout="constrained")
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        vmin, vmax = self.value_range
        small = len(panels) == 1 and r <= 10 and c <= 10
        for k, (ax, i) in enumerate(zip(axes, panels, strict=True)):
            marker = "▶ " if i == self.index and len(panels) > 1 else ""
            viz.heatmap(
                self.matrix(i),
                self.row_labels if k == 0 else None,
                self.col_labels,
                ax=ax,
                title=f"{marker}{self.names[i]}",
                annotate=small,
                vmin=vmin,
                vmax=vmax,
                colorbar=False,
            )
            if k > 0:
                ax.set_yticks([])
        fig.colorbar(axes[0].images[0], ax=list(axes), fraction=0.046, pad=0.02)
        if self.title:
            fig.suptitle(self.title)
        return fig
