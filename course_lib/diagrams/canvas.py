"""The one drawing style of the book's diagrams: boxes, pointwise operations, arrows, labels.

A :class:`Canvas` is a matplotlib figure with no axes, measured in *units*: one unit is
:data:`UNIT` inches, so a diagram ``width`` units wide is ``width * UNIT`` inches wide and
its text keeps its size whatever the diagram holds (:data:`FONT_PT`, never smaller than
:data:`MIN_FONT_PT`). Labels take matplotlib's mathtext, in the lectures' notation:
``"$h_t$"``, ``r"$\\alpha_{t,i}$"``. Colours say what a shape is (:data:`KINDS`): a vector or
state, a parameter, a layer, a pointwise operation, an input or output. The pages show the
SVG at its natural size; in the book's dark theme ``book/_static/course.css`` inverts it, so
the palette is chosen to read both ways.

``canvas.svg()`` is the diagram as deterministic SVG text (no date, fixed ids, text drawn as
paths), which ``python -m course_lib.diagrams`` writes to ``book/diagrams/<name>.svg``.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib as mpl
from matplotlib.figure import Figure
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch

UNIT = 0.55  # inches a unit
# The text column at a 1280 px desktop width is 720 CSS px (96 a inch): a wider diagram would be
# shrunk, and its text with it.
MAX_WIDTH = 720 / 96 / UNIT  # units
FONT_PT = 12.0
MIN_FONT_PT = 9.5
INK = "#222222"
# kind: (fill, edge)
KINDS = {
    "state": ("#dbe9f6", "#2b6cb0"),  # a vector: h_t, c_t, x_t, an embedding
    "param": ("#fde8c8", "#b35900"),  # a weight matrix or a learned vector
    "layer": ("#e3f1df", "#2f7d32"),  # a layer or a block: an RNN cell, attention, FFN
    "op": ("#ffffff", "#222222"),  # a pointwise operation: sigma, tanh, x, +
    "io": ("#f1f1f1", "#555555"),  # words, tokens, audio: what goes in and comes out
    "mark": ("#fbdada", "#c62828"),  # what the figure points at: a pruned beam, a mask
}


class Canvas:
    """A diagram ``width`` x ``height`` units, origin at the bottom left."""

    def __init__(self, width: float, height: float, *, title: str | None = None):
        if not (0 < width <= MAX_WIDTH and height > 0):
            raise ValueError(
                f"a diagram is 0 to {MAX_WIDTH:.1f} units wide (the text column at 1280 px) "
                f"and more than 0 high; got {width} x {height}"
            )
        self.fig = Figure(
            figsize=(width * UNIT, height * UNIT)
        )  # no pyplot: no backend
        self.ax = self.fig.add_axes((0, 0, 1, 1))
        self.ax.set_xlim(0, width)
        self.ax.set_ylim(0, height)
        self.ax.set_axis_off()
        self.width, self.height = width, height
        if title:
            self.text(
                (width / 2, height - 0.35), title, size=FONT_PT + 1, weight="bold"
            )

    def _font(self, size: float | None) -> float:
        size = FONT_PT if size is None else size
        if size < MIN_FONT_PT:
            raise ValueError(
                f"text below {MIN_FONT_PT} pt does not read on the page: {size}"
            )
        return size

    def text(self, xy, label: str, *, size=None, colour=INK, **kwargs) -> None:
        """``label`` centred on ``xy`` (``ha``/``va`` may say otherwise)."""
        kwargs = {"ha": "center", "va": "center"} | kwargs
        self.ax.text(*xy, label, fontsize=self._font(size), color=colour, **kwargs)

    def box(self, xy, label: str = "", *, kind="state", w=1.6, h=0.8, size=None):
        """A rounded box centred on ``xy``; returns its centre, for arrows."""
        fill, edge = KINDS[kind]
        x, y = xy
        self.ax.add_patch(
            FancyBboxPatch(
                (x - w / 2, y - h / 2),
                w,
                h,
                boxstyle="round,pad=0.02,rounding_size=0.12",
                facecolor=fill,
                edgecolor=edge,
                linewidth=1.4,
            )
        )
        if label:
            self.text(xy, label, size=size)
        return xy

    def op(self, xy, label: str, *, r=0.32, kind="op", size=None):
        """A pointwise operation (``"$\\sigma$"``, ``"tanh"``, ``"×"``, ``"+"``) in a circle."""
        fill, edge = KINDS[kind]
        self.ax.add_patch(Circle(xy, r, facecolor=fill, edgecolor=edge, linewidth=1.4))
        self.text(xy, label, size=size)
        return xy

    def arrow(
        self,
        start,
        end,
        label: str | None = None,
        *,
        bend: float = 0.0,
        gap: Sequence[float] = (0.45, 0.45),
        colour=INK,
        dashed: bool = False,
        where: float = 0.5,
        offset=(0.0, 0.25),
        size=None,
    ) -> None:
        """An arrow from ``start`` to ``end`` (centres), stopping ``gap`` short of each; a
        ``bend`` curves it; ``label`` sits at ``where`` along it, moved by ``offset``."""
        self.ax.add_patch(
            FancyArrowPatch(
                start,
                end,
                arrowstyle="-|>",
                mutation_scale=14,
                color=colour,
                linewidth=1.3,
                linestyle="--" if dashed else "-",
                connectionstyle=f"arc3,rad={bend}",
                shrinkA=gap[0] * 72 * UNIT,
                shrinkB=gap[1] * 72 * UNIT,
            )
        )
        if label:
            x = start[0] + (end[0] - start[0]) * where + offset[0]
            y = start[1] + (end[1] - start[1]) * where + offset[1]
            self.text((x, y), label, size=size)

    def line(self, points, *, colour=INK, dashed=False, width=1.3) -> None:
        """A polyline through ``points`` (no arrow head): a wire that branches or joins."""
        xs, ys = zip(*points)
        self.ax.plot(
            xs, ys, color=colour, linewidth=width, linestyle="--" if dashed else "-"
        )

    def frame(self, xy, w, h, label: str = "", *, kind="layer") -> None:
        """A dashed outline around a group (a cell, a block, ``N×``), labelled at its top left."""
        _, edge = KINDS[kind]
        x, y = xy
        self.ax.add_patch(
            FancyBboxPatch(
                (x, y),
                w,
                h,
                boxstyle="round,pad=0.02,rounding_size=0.2",
                facecolor="none",
                edgecolor=edge,
                linewidth=1.2,
                linestyle="--",
            )
        )
        if label:
            self.text((x + 0.15, y + h - 0.3), label, ha="left", colour=edge)

    def svg(self) -> str:
        """The diagram as SVG text, the same bytes on every run."""
        out = io.StringIO()
        with mpl.rc_context({"svg.hashsalt": "course", "svg.fonttype": "path"}):
            self.fig.savefig(
                out, format="svg", metadata={"Date": None}, transparent=True
            )
        return out.getvalue()
