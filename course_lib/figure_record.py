"""What each figure the book draws shows a reader: its size, its smallest text, its labels.

In the book build (``COURSE_WIDGET_MODE=html``) importing ``course_lib`` registers one more
IPython display formatter for matplotlib figures: beside the ``image/png`` the inline backend
makes, every figure's output then carries ``application/vnd.course.figure+json``, the dict
``describe`` returns. The PNG cannot say what it holds; this record, taken from the figure's
artists when it is displayed, can. The page tests (``tests/book/test_figures.py``) match
each image on a chapter page to its record (by the PNG's SHA-256, the name the book gives the
file) and hold it to book/writing.md: natural size, an axis label on every axis with tick
labels, no text under 9 px, tick labels that do not collide, no axes over another's text,
colour scales that fit their data, a legend where colours mean something.

Nothing here changes a figure's PNG or what a chapter computes; outside the book build (a
reader's Jupyter) nothing is registered.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["MIME", "describe", "install"]

MIME = "application/vnd.course.figure+json"
SCRIPT_SHRINK = 0.7  # mathtext sets a super- or subscript at 0.7 of its font size
MAX_UNUSED_COLOUR = 0.5  # at most half of a colour scale may lie beyond its data


def _drawn_ticks(axis) -> list:
    """The tick labels ``axis`` draws: visible, non-empty, inside the view interval."""
    lo, hi = sorted(axis.get_view_interval())
    eps = 1e-9 * max(abs(hi - lo), 1e-300)
    labels = []
    for tick in axis.get_major_ticks() + axis.get_minor_ticks():
        loc = tick.get_loc()
        if loc is None or not lo - eps <= loc <= hi + eps or not tick.get_visible():
            continue
        for label in (tick.label1, tick.label2):
            if label.get_visible() and label.get_text().strip():
                label._course_axis = axis  # which axis it labels (_same_axis_ticks)
                labels.append(label)
    return labels


def _all_tick_labels(fig) -> set[int]:
    out: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.majorTicks + axis.minorTicks:
                out |= {id(tick.label1), id(tick.label2)}
    return out


def _size_pt(text) -> float:
    """A text's smallest glyph size: a mathtext script is set at 0.7 of the font size."""
    s = text.get_text()
    script = "$" in s and ("^" in s or "_" in s)
    return float(text.get_fontsize()) * (SCRIPT_SHRINK if script else 1.0)


def _texts(fig) -> list:
    """Every text the figure draws: titles, labels, tick labels in view, legends, notes."""
    from matplotlib.text import Text

    hidden = _all_tick_labels(fig)  # tick labels: only those in view, added below
    for ax in fig.axes:
        if not (ax.get_visible() and ax.axison):
            hidden |= {
                id(t) for a in (ax.xaxis, ax.yaxis) for t in (a.label, a.offsetText)
            }
    out = [
        t
        for t in fig.findobj(Text)
        if id(t) not in hidden
        and t.get_visible()
        and t.get_text().strip()
        and (t.axes is None or t.axes.get_visible())
    ]
    for ax in fig.axes:
        if ax.get_visible() and ax.axison:
            out += _drawn_ticks(ax.xaxis) + _drawn_ticks(ax.yaxis)
    return out


def _name(fig, ax) -> str:
    """How a report names an axes: its title, or its place among the figure's axes."""
    cbar = getattr(ax, "_colorbar", None)
    if cbar is not None:
        parents = [a for a in fig.axes if a is not ax and a.bbox.overlaps(ax.bbox)]
        near = min(
            (
                a
                for a in fig.axes
                if a is not ax and getattr(a, "_colorbar", None) is None
            ),
            key=lambda a: abs(a.bbox.x1 - ax.bbox.x0) + abs(a.bbox.y0 - ax.bbox.y0),
            default=parents[0] if parents else None,
        )
        return f"colour bar of {_name(fig, near)}" if near is not None else "colour bar"
    title = ax.get_title() or ax.get_title(loc="left") or ax.get_title(loc="right")
    index = fig.axes.index(ax) + 1
    return (
        f"panel {index} ({title.strip()[:40]})" if title.strip() else f"panel {index}"
    )


def _labelled(fig, ax, which: str) -> bool:
    """Whether the ``which`` ("x"/"y") axis of ``ax`` is labelled, here or for its row."""
    label = getattr(ax, f"get_{which}label")()
    if label.strip() and getattr(ax, f"{which}axis").label.get_visible():
        return True
    sup = getattr(fig, f"_sup{which}label", None)
    if sup is not None and sup.get_visible() and sup.get_text().strip():
        return True
    siblings = getattr(ax, f"get_shared_{which}_axes")().get_siblings(ax)
    return any(
        s is not ax and getattr(s, f"get_{which}label")().strip() for s in siblings
    )


def _overlap(a, b, slack: float = 1.0) -> bool:
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w > slack and h > slack


def _collisions(axis, renderer) -> list[str]:
    """Pairs of neighbouring tick labels of one axis whose boxes overlap."""
    labels = _drawn_ticks(axis)
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in labels]
    boxes.sort(key=lambda b: (b[1].x0, b[1].y0))
    out = []
    for i, (text_a, a) in enumerate(boxes):
        for text_b, b in boxes[i + 1 :]:
            if _overlap(a, b):
                out.append(f"{text_a!r}/{text_b!r}")
    return out


def _overprinted(texts: list, renderer) -> list[str]:
    """Pairs of drawn texts (labels, notes, titles) printed over each other: boxes that
    share a fifth of the smaller one's area. Pairs of one axis's tick labels are
    ``_collisions``'; a legend's texts sit in rows of their own."""
    boxes = []
    for t in texts:
        box = t.get_window_extent(renderer)
        if box.width > 0 and box.height > 0:
            boxes.append((t, box))
    boxes.sort(key=lambda b: b[1].x0)
    out = []
    for i, (a, p) in enumerate(boxes):
        for b, q in boxes[i + 1 :]:
            if q.x0 >= p.x1:
                break
            w = min(p.x1, q.x1) - max(p.x0, q.x0)
            h = min(p.y1, q.y1) - max(p.y0, q.y0)
            small = min(p.width * p.height, q.width * q.height)
            if w > 1 and h > 1 and w * h > 0.2 * small and not _same_axis_ticks(a, b):
                out.append(f"{a.get_text()[:20]!r}/{b.get_text()[:20]!r}")
    return out


def _same_axis_ticks(a, b) -> bool:
    """Whether two texts are tick labels of one axis (``_collisions`` reports those)."""
    for t in (a, b):
        if not hasattr(t, "_course_axis"):
            return False
    return a._course_axis is b._course_axis


def _own_texts(ax) -> list:
    texts = _drawn_ticks(ax.xaxis) + _drawn_ticks(ax.yaxis)
    texts += [ax.xaxis.label, ax.yaxis.label, ax.title]
    return [t for t in texts if t.get_visible() and t.get_text().strip()]


def _covered(fig, renderer) -> list[str]:
    """Axes (a colour bar, a panel) drawn over another axes' frame or labels."""
    shown = [a for a in fig.axes if a.get_visible()]
    out = []
    for a in shown:
        for b in shown:
            if a is b or b.bbox.bounds == a.bbox.bounds:  # a twin shares its frame
                continue
            if _contains(a.bbox, b.bbox) or _contains(b.bbox, a.bbox):  # an inset
                continue
            for text in _own_texts(b):
                if _overlap(text.get_window_extent(renderer), a.bbox, slack=2.0):
                    out.append(
                        f"{_name(fig, a)} covers {text.get_text()!r} of {_name(fig, b)}"
                    )
                    break
    return out


def _contains(outer, inner) -> bool:
    return (
        outer.x0 <= inner.x0 + 1
        and outer.y0 <= inner.y0 + 1
        and outer.x1 >= inner.x1 - 1
        and outer.y1 >= inner.y1 - 1
    )


def _colour_spans(fig) -> list[dict[str, Any]]:
    """Each colour scale (one per norm), the part of it the data covers and the part it
    leaves unused: beyond the data at either end, except below data that starts at a
    scale anchored at 0 (weights, counts and probabilities are drawn from 0)."""
    import numpy as np
    from matplotlib.cm import ScalarMappable

    groups: dict[int, list] = {}
    for ax in fig.axes:
        if getattr(ax, "_colorbar", None) is not None:  # draws the whole scale
            continue
        for m in ax.images + ax.collections:
            if not isinstance(m, ScalarMappable) or m.get_array() is None:
                continue
            data = np.ma.masked_invalid(np.ma.asarray(m.get_array(), dtype=float))
            if data.ndim == 3 or data.count() == 0:  # an RGB image has no scale
                continue
            groups.setdefault(id(m.norm), [m.norm, _name(fig, ax), []])[2].append(data)
    out = []
    for norm, name, arrays in groups.values():
        values = np.ma.concatenate([a.ravel() for a in arrays])
        scaled = np.ma.masked_invalid(np.ma.asarray(norm(values), dtype=float))
        if scaled.count() == 0:
            continue
        lo, hi = float(np.clip(scaled.min(), 0, 1)), float(np.clip(scaled.max(), 0, 1))
        anchored = float(norm.vmin) == 0.0 and float(values.min()) >= 0.0
        out.append(
            {
                "axes": name,
                "vmin": float(norm.vmin),
                "vmax": float(norm.vmax),
                "data": [float(values.min()), float(values.max())],
                "span": round(hi - lo, 3),
                "unused": round((1 - hi) + (0.0 if anchored else lo), 3),
            }
        )
    return out


def _unkeyed(fig, ax) -> bool:
    """Whether ``ax`` draws series in two or more colours with nothing saying which is which."""
    from matplotlib.colors import to_hex

    if ax.get_legend() is not None or fig.legends or ax.texts:
        return False
    colours = set()
    for line in ax.get_lines():
        if line.get_visible() and len(line.get_xdata()) > 2:
            colours.add(to_hex(line.get_color()))
    for container in ax.containers:
        patches = [p for p in container if hasattr(p, "get_facecolor")]
        if patches:
            colours.add(to_hex(patches[0].get_facecolor()))
    return len(colours) >= 2


def describe(fig) -> dict[str, Any]:
    """What ``fig`` shows a reader (the record the book's page tests read).

    ``title``: the figure's and its panels' titles; ``size_in`` and ``dpi`` (of the PNG);
    ``min_font_pt`` and ``min_font_text``: the smallest text drawn (a mathtext script
    counts at 0.7 of its size); ``unlabelled``: the axes with tick labels but no axis
    label (nor one for their row or column); ``collisions``: tick labels of one axis that
    overlap; ``overprinted``: other texts printed over each other; ``covered``: axes drawn
    over another's text; ``colour``: each colour scale with the part of it the data spans
    and the part it leaves unused (``unfitted`` lists those with more than half unused);
    ``unkeyed``: axes with series in several colours and no legend or note.
    """
    import matplotlib

    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    dpi = matplotlib.rcParams["savefig.dpi"]
    dpi = fig.dpi if dpi == "figure" else dpi
    texts = _texts(fig)
    smallest = min(texts, key=_size_pt, default=None)
    shown = [a for a in fig.axes if a.get_visible() and a.axison]
    unlabelled, collisions = [], []
    for ax in shown:
        for which in ("x", "y"):
            axis = getattr(ax, f"{which}axis")
            if _drawn_ticks(axis) and not _labelled(fig, ax, which):
                unlabelled.append(f"{_name(fig, ax)}: {which} axis")
            pairs = _collisions(axis, renderer)
            if pairs:
                collisions.append(
                    f"{_name(fig, ax)}: {which} ticks {', '.join(pairs[:3])}"
                )
    colour = _colour_spans(fig)
    titles = [fig.get_suptitle()] + [a.get_title() for a in fig.axes if a.get_visible()]
    return {
        "title": " | ".join(t.strip() for t in titles if t.strip())[:80],
        "size_in": [round(float(v), 3) for v in fig.get_size_inches()],
        "dpi": float(dpi),
        "axes": len(shown),
        "min_font_pt": round(_size_pt(smallest), 2) if smallest is not None else None,
        "min_font_text": smallest.get_text()[:40] if smallest is not None else "",
        "unlabelled": unlabelled,
        "collisions": collisions,
        "covered": _covered(fig, renderer),
        "overprinted": _overprinted(texts, renderer)[:5],
        "colour": colour,
        "unfitted": [c["axes"] for c in colour if c["unused"] > MAX_UNUSED_COLOUR],
        "unkeyed": [_name(fig, ax) for ax in shown if _unkeyed(fig, ax)],
    }


def install(shell=None) -> bool:
    """In the book build, make every displayed figure carry ``describe``'s record (``MIME``).

    Returns whether the formatter is registered (only with ``COURSE_WIDGET_MODE=html`` and an
    IPython shell). Idempotent.
    """
    if os.environ.get("COURSE_WIDGET_MODE", "").strip().lower() != "html":
        return False
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return False
        shell = get_ipython()
    display = getattr(shell, "display_formatter", None)
    if display is None:
        return False
    if MIME not in display.formatters:
        from IPython.core.formatters import JSONFormatter, catch_format_error
        from traitlets import ObjectName, Unicode

        class FigureRecord(JSONFormatter):
            """``describe`` for every matplotlib Figure. Not a registered type printer:
            pyplot's inline backend pops Figure from every formatter when it starts."""

            format_type = Unicode(MIME)
            print_method = ObjectName("_repr_course_figure_")

            @catch_format_error
            def __call__(self, obj):
                if self.enabled and _is_figure(obj):
                    return describe(obj)
                return None

        display.formatters[MIME] = FigureRecord(parent=display)
    return True


def _is_figure(obj) -> bool:
    """Whether ``obj`` is a matplotlib Figure (without importing matplotlib)."""
    return any(
        (c.__module__, c.__name__) == ("matplotlib.figure", "Figure")
        for c in type(obj).__mro__
    )
