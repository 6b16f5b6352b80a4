r"""GradientFlowExplorer: how large the gradient is where it arrives, name by name. Chapters 3, 6.

Back-propagation multiplies the upstream gradient by one local Jacobian per layer (CS224N
lecture 3), so its size can shrink or grow geometrically with depth: vanishing and exploding
gradients (lecture 6 for RNNs, where "layers" are time steps). The widget shows, for each name
(``"layer 3"``, ``"t = 17"``), the norm ‖g‖₂ of the gradient arriving there and the spread of its
entries |g| (a box of quantiles), on a log scale, for every setting of some controls.

The family is generic: any mapping ``setting -> {name: gradient tensor}`` (or precomputed
``gradient_stats``) with its controls. The measurements live in
``course_lib.backprop.gradient_flow`` (re-exported here): ``gradient_stats``, and
``mlp_gradient_flow``, the producer of Chapter 3 (a deep MLP with depth, activation,
initialisation scale, residual connections and LayerNorm); ``mlp_gradient_flow_explorer``
precomputes its whole grid. Everything is stored as log10 values rounded to ``decimals``
places (3 by default, 2 for the MLP grid: 2 % precision), so the controls work without a
kernel. Front end: ``js/gradient_flow.js``.

Shape legend: B batch, D width (units per layer), C classes, L depth.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import torch
import traitlets as t
from matplotlib.figure import Figure
from torch import Tensor

from course_lib.backprop.gradient_flow import (
    MLP_ACTIVATIONS,
    QUANTILES,
    GradientStats,
    gradient_stats,
    mlp_gradient_flow,
)
from course_lib.runtime import one_thread
from course_lib.widgets.base import CourseWidget, js_path, to_jsonable

__all__ = [
    "MLP_ACTIVATIONS",
    "QUANTILES",
    "GradientFlowExplorer",
    "GradientStats",
    "gradient_stats",
    "mlp_gradient_flow",
    "mlp_gradient_flow_explorer",
]

MLP_INIT_SCALES = {"0.5": 0.5, "1": 1.0, "√2": math.sqrt(2.0), "2": 2.0}


def _label(value: Any) -> str:
    """The text of a control option: on/off for booleans, %g for floats, str otherwise."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _log10(values: Sequence[float]) -> list[float]:
    """log10 of non-negative values, with −inf for exact zeros (``None`` on the page)."""
    with np.errstate(divide="ignore"):
        return np.log10(np.asarray(values, dtype=np.float64)).tolist()


def _axis_range(packed: Iterable[dict]) -> tuple[float, float]:
    """Whole decades covering the norms and every quantile but the lowest (when there are 3+).

    The lowest whisker can reach absurd depths (saturated softmax: p − y ≈ 1e-240 for some
    examples); it is drawn clipped at the axis instead of squashing the rest. The JS does the same.
    """
    values = []
    for p in packed:
        values += [v for v in p["norm"] if v is not None]
        for row in p["q"]:
            values += [v for v in (row[1:] if len(row) >= 3 else row) if v is not None]
    if not values:
        return -1.0, 1.0
    lo, hi = math.floor(min(values)), math.ceil(max(values))
    return float(lo), float(max(hi, lo + 1))


class GradientFlowExplorer(CourseWidget):
    """Gradient norms and |g| quantiles per name, on a log scale, for every control setting.

    states: ``{key: {name: gradient} or GradientStats}``; a key is a tuple with one option per
    control (in the order of ``controls``), or the option itself when there is one control.
    controls: ``{control: [options]}`` (ints, floats, bools (shown on/off) or strings); every
    combination must have a state. ``None``: one control, ``"setting"``, over the keys.
    selection: the setting shown first (default: each control's first option).
    figure_panels: the settings the static figure shows side by side (partial dicts are
    completed from ``selection``); default: only the current one.
    """

    _esm = js_path("gradient_flow")

    controls = t.List(help="[{name, label, options}] in key order").tag(sync=True)
    selection = t.Dict(help="{control name: option label}").tag(sync=True)
    states = t.Dict(
        help="key -> {n: name list index, norm: [log10], q: [[log10]]}"
    ).tag(sync=True)
    name_lists = t.List(help="the distinct lists of names").tag(sync=True)
    levels = t.List(t.Float(), help="quantile levels of the boxes").tag(sync=True)
    y_range = t.List(t.Float(), default_value=[-1.0, 1.0]).tag(sync=True)
    shared_axis = t.Bool(False, help="one y range for every setting").tag(sync=True)
    title = t.Unicode("").tag(sync=True)
    x_label = t.Unicode("layer").tag(sync=True)
    value_label = t.Unicode("gradient").tag(sync=True)

    def __init__(
        self,
        states: Mapping[Any, Mapping[str, Tensor] | GradientStats],
        controls: Mapping[str, Sequence[Any]] | None = None,
        *,
        selection: Mapping[str, Any] | None = None,
        title: str = "",
        x_label: str = "layer",
        value_label: str = "gradient",
        figure_panels: Sequence[Mapping[str, Any]] | None = None,
        shared_axis: bool = False,
        decimals: int = 3,
    ) -> None:
        if not isinstance(states, Mapping) or not states:
            raise ValueError(
                "states must be a non-empty dict {setting: named gradients}"
            )
        if controls is None:
            controls = {"setting": list(states)}
        ctl = [
            {
                "name": str(k),
                "label": str(k).replace("_", " "),
                "options": [_label(o) for o in v],
            }
            for k, v in controls.items()
        ]
        for c in ctl:
            opts = c["options"]
            if not opts or len(set(opts)) != len(opts) or any("|" in o for o in opts):
                raise ValueError(
                    f"control {c['name']!r} needs distinct options without '|'; "
                    f"got {opts}"
                )
        self._controls = ctl
        packed, lists, stats = {}, [], {}
        for key, value in states.items():
            k = self._key_of(key)
            s = value if isinstance(value, GradientStats) else gradient_stats(value)
            if list(s.names) not in lists:
                lists.append(list(s.names))
            stats[k] = s
            norm = to_jsonable(np.array(_log10(s.norms)), decimals)
            q = to_jsonable(np.array([_log10(row) for row in s.quantiles]), decimals)
            packed[k] = {"n": lists.index(list(s.names)), "norm": norm, "q": q}
        grid = {"|".join(p) for p in itertools.product(*(c["options"] for c in ctl))}
        missing, extra = sorted(grid - set(packed)), sorted(set(packed) - grid)
        if missing or extra:
            raise ValueError(
                f"states must hold exactly one entry per combination of controls; missing "
                f"{missing[:5]}{' …' if len(missing) > 5 else ''}, unexpected {extra[:5]}"
            )
        levels = {s.levels for s in stats.values()}
        if len(levels) != 1:
            raise ValueError(
                f"every state needs the same quantile levels; got {levels}"
            )
        self._stats = stats
        lo, hi = _axis_range(packed.values())
        chosen = {c["name"]: c["options"][0] for c in ctl}
        chosen.update(self._normalise(selection or {}))
        self._panels = [self._normalise(p) for p in figure_panels or [{}]]
        super().__init__(
            controls=ctl,
            selection=chosen,
            states=packed,
            name_lists=lists,
            levels=list(next(iter(levels))),
            y_range=[lo, hi],
            shared_axis=bool(shared_axis),
            title=str(title),
            x_label=str(x_label),
            value_label=str(value_label),
        )

    def _key_of(self, key: Any) -> str:
        parts = key if isinstance(key, tuple) else (key,)
        if len(parts) != len(self._controls):
            names = [c["name"] for c in self._controls]
            raise ValueError(f"state key {key!r} needs one option per control {names}")
        for part, c in zip(parts, self._controls):
            if _label(part) not in c["options"]:
                raise ValueError(
                    f"state key {key!r}: {part!r} is not an option of {c['name']!r} "
                    f"({c['options']})"
                )
        return "|".join(_label(p) for p in parts)

    def _normalise(self, selection: Mapping[str, Any]) -> dict[str, str]:
        options = {c["name"]: c["options"] for c in self._controls}
        out = {}
        for name, value in selection.items():
            if name not in options:
                raise ValueError(
                    f"unknown control {name!r}; controls are {list(options)}"
                )
            if _label(value) not in options[name]:
                raise ValueError(f"{name}={value!r} is not one of {options[name]}")
            out[name] = _label(value)
        return out

    @t.validate("selection")
    def _check_selection(self, proposal: dict) -> dict:
        value = dict(proposal["value"])
        if getattr(
            self, "_controls", None
        ):  # a partial selection keeps the other controls
            value = dict(self.selection or {}, **self._normalise(value))
            if set(value) != {c["name"] for c in self._controls}:
                raise t.TraitError(
                    f"selection needs every control; got {sorted(value)}"
                )
        return value

    def key(self, selection: Mapping[str, Any] | None = None) -> str:
        """The state key of a (partial) selection, completed from the current one."""
        chosen = dict(self.selection, **self._normalise(selection or {}))
        return "|".join(chosen[c["name"]] for c in self._controls)

    def stats(self, selection: Mapping[str, Any] | None = None) -> GradientStats:
        """The unrounded ``GradientStats`` of a (partial) selection."""
        return self._stats[self.key(selection)]

    def _plain_text(self) -> str:
        grid = " × ".join(f"{c['name']} ({len(c['options'])})" for c in self._controls)
        return (
            f"GradientFlowExplorer({self.title!r}: {len(self.states)} settings: {grid})"
        )

    def _describe(self, selection: Mapping[str, str], names: Sequence[str]) -> str:
        return ", ".join(
            f"{c['label']} {selection[c['name']]}"
            for c in self._controls
            if c["name"] in names
        )

    def static_figure(
        self, panels: Sequence[Mapping[str, Any]] | None = None
    ) -> Figure:
        """The settings of ``panels`` (default: ``figure_panels``) side by side, one shared y axis.

        Each panel: the norm ‖g‖ per name (line) over boxes of |g| (whiskers: outer levels).
        Panel titles name the controls that differ between panels; the others go in the title.
        """
        chosen = [
            dict(self.selection, **self._normalise(p)) for p in panels or self._panels
        ]
        all_names = [c["name"] for c in self._controls]
        varying = [n for n in all_names if len({p[n] for p in chosen}) > 1]
        common = [n for n in all_names if n not in varying]
        if len(chosen) == 1:
            varying, common = all_names, []
        fig = Figure(figsize=(min(4.2 * len(chosen), 13), 3.4), layout="constrained")
        axes = fig.subplots(1, len(chosen), squeeze=False, sharey=True)[0]
        lo, hi = _axis_range(self.states[self.key(sel)] for sel in chosen)
        floor = 10.0**lo
        for ax, sel in zip(axes, chosen):
            s = self._stats[self.key(sel)]
            xs = np.arange(1, len(s.names) + 1)  # (L,)
            q = np.array(s.quantiles).clip(
                min=floor
            )  # (L, levels)  clipped at the axis
            mid = len(s.levels) // 2
            ax.vlines(xs, q[:, 0], q[:, -1], color="#8c959f", lw=1)
            if q.shape[1] >= 3:
                ax.vlines(xs, q[:, 1], q[:, -2], color="#9ecae1", lw=5)
            ax.plot(xs, q[:, mid], "_", color="#08519c", ms=7, label="|g| quantiles")
            ax.plot(xs, s.norms, "o-", color="#d62728", ms=3, lw=1.2, label="‖g‖")
            ax.set_yscale("log")
            ax.set_ylim(floor, 10.0**hi)
            ax.set_title(self._describe(sel, varying), fontsize=9)
            ax.set_xlabel(self.x_label)
            step = max(1, len(xs) // 8)
            ax.set_xticks(xs[::step], [n.split()[-1] for n in s.names][::step])
            ax.grid(True, which="major", axis="y", alpha=0.3)
        axes[0].set_ylabel(f"size of {self.value_label}")
        axes[0].legend(fontsize=8, loc="best")
        if self.title or common:
            shared = self._describe(chosen[0], common)
            fig.suptitle(f"{self.title}\n{shared}".strip(), fontsize=10)
        return fig


def mlp_gradient_flow_explorer(
    depths: Sequence[int] = (4, 8, 16, 32),
    activations: Sequence[str] = MLP_ACTIVATIONS,
    init_scales: Mapping[str, float] | None = None,
    *,
    width: int = 64,
    batch: int = 64,
    seed: int = 0,
    wrt: str = "activation",
    device: torch.device | str | None = None,
    selection: Mapping[str, Any] | None = None,
    decimals: int = 2,
) -> GradientFlowExplorer:
    """The Chapter 3 widget: every depth × activation × init scale × residual × LayerNorm.

    init_scales: ``{label: scale}`` (default 0.5, 1, √2 (He for ReLU), 2) for W ~ N(0, s²/D).
    decimals: places of the stored log10 values; 2 is 2 % precision, enough for a plot, and
    keeps the page small (the static figure uses the unrounded statistics).
    The static figure compares sigmoid, ReLU and ReLU + residual + LayerNorm at depth 16 (or the
    depth nearest to it).
    """
    scales = dict(MLP_INIT_SCALES if init_scales is None else init_scales)
    controls = {
        "depth": list(depths),
        "activation": list(activations),
        "init_scale": list(scales),
        "residual": [False, True],
        "layernorm": [False, True],
    }
    states = {}
    with one_thread():  # one thread for the whole grid (see one_thread)
        for d, act, s, res, ln in itertools.product(*controls.values()):
            grads = mlp_gradient_flow(
                d,
                act,
                scales[s],
                res,
                ln,
                width=width,
                batch=batch,
                seed=seed,
                wrt=wrt,
                device=device,
            )
            states[(d, act, s, res, ln)] = gradient_stats(grads)
    depth = min(depths, key=lambda d: abs(d - 16))
    start = {"depth": depth, "init_scale": "1" if "1" in scales else next(iter(scales))}
    panels = [
        {"activation": a, **extra}
        for a, extra in (
            ("sigmoid", {}),
            ("relu", {}),
            ("relu", {"residual": True, "layernorm": True}),
        )
        if a in activations
    ]
    what = "∂J/∂W_l" if wrt == "weight" else "∂J/∂h_l"
    return GradientFlowExplorer(
        states,
        controls,
        selection={**start, **(selection or {})},
        title=f"Gradient reaching each layer of a deep MLP ({what}, width {width})",
        x_label="layer (input side first)",
        value_label=what,
        figure_panels=[
            {**start, "residual": False, "layernorm": False, **p} for p in panels
        ],
        shared_axis=True,  # settings compared at one scale: vanishing and exploding side by side
        decimals=decimals,
    )
