"""The pattern every course widget follows: precomputed traits, one JS module, two modes.

A widget family is a ``CourseWidget`` subclass with one dependency-free ES module
``course_lib/widgets/js/<name>.js`` (``export default { render({ model, el }) }``, using only
``model.get/set/on/off/save_changes``). The helpers the modules share (``make``,
``control``, ``svg``, the viridis ramp, the heatmap grid...) are declared once, in whole files
``js/shared/*.js`` (no ``import`` or ``export``), beside the one stylesheet
``js/shared/widget.css``: ``js_source`` puts the files a module uses in front of it, and that
one text is what runs in both modes. Python precomputes every state
the controls can reach and stores it, rounded, in synced traits; work that needs a kernel
is a Python observer that recomputes the same traits.

``COURSE_WIDGET_MODE`` picks how a widget shows itself:

- ``live`` (default): a normal anywidget, two-way sync in JupyterLab, VS Code and Colab.
- ``html`` (the book build): self-contained HTML. The traits travel as JSON in a
  ``<script type="application/json">``, the same JS module travels as a JSON string and is
  imported from a Blob URL, and a small stand-in model (get/set/on/off/save_changes over the
  JSON) drives it. No comm is opened, so the notebook stores no widget-manager state and the
  page loads no widget manager; nothing is fetched, so it works from ``file://``.
  ``_kernel`` is false there, and the JS hides controls that need a kernel.

Each widget also draws a static matplotlib figure of its default state
(``static_figure``) for readers whose page cannot run the widget. ``show(widget)``
displays one or the other, never both stacked: live, one output whose bundle holds the
widget view and the PNG (a front end with a widget manager shows the widget, any other an
untrusted notebook, nbviewer, a PDF the PNG); in ``html`` mode, the widget, with the PNG
inside its ``<noscript>`` (a browser without scripts shows the figure instead).
"""

from __future__ import annotations

import base64
import hashlib
import io
import itertools
import json
import math
import os
import pathlib
import re
from typing import Any, ClassVar

import anywidget
import numpy as np
import traitlets as t

__all__ = [
    "CourseWidget",
    "in_range",
    "js_path",
    "js_source",
    "show",
    "to_jsonable",
    "widget_mode",
]

MODES = ("live", "html")
JS_DIR = pathlib.Path(__file__).resolve().parent / "js"
SHARED_DIR = (
    JS_DIR / "shared"
)  # the shared helpers, whole files put in front of a module
WIDGET_CSS = SHARED_DIR / "widget.css"  # the one stylesheet of every widget
_ids = itertools.count()


def widget_mode() -> str:
    """The display mode from ``COURSE_WIDGET_MODE``: ``"live"`` (default) or ``"html"``."""
    mode = os.environ.get("COURSE_WIDGET_MODE", "").strip().lower() or "live"
    if mode not in MODES:
        raise ValueError(
            f"COURSE_WIDGET_MODE must be one of {', '.join(MODES)}; got {mode!r}"
        )
    return mode


def js_path(name: str) -> pathlib.Path:
    """The path of the widget module ``course_lib/widgets/js/<name>.js``."""
    path = JS_DIR / f"{name}.js"
    if not path.is_file():
        raise FileNotFoundError(f"no widget module {name!r}: {path} does not exist")
    return path


def js_source(name: str) -> str:
    """The module text a widget runs: the shared files it uses, then ``js/<name>.js``.

    ``js/shared/*.js`` are whole files of plain top-level declarations (no ``import`` or
    ``export``). A file comes along, whole, when the module or a file already taken
    mentions a name it declares; the files keep their alphabetical order, in front of the
    module, and ``js/shared/widget.css`` (the one stylesheet) comes as ``WIDGET_CSS``. So
    the same text runs from anywidget live and from a Blob URL in ``html`` mode, a page
    carries only the helpers its widget calls, and nothing can cut a helper in two.
    """
    module = js_path(name).read_text(encoding="utf-8")
    shared = {p.stem: _code(p) for p in sorted(SHARED_DIR.glob("*.js"))}
    declared = {stem: _TOP_LEVEL.findall(code) for stem, code in shared.items()}
    empty = [stem for stem, names in declared.items() if not names]
    if empty:
        raise ValueError(f"js/shared/{empty[0]}.js declares no function, const or let")
    taken: list[str] = []
    text, grew = module, True
    while grew:
        grew = False
        for stem, names in declared.items():
            if stem not in taken and any(re.search(rf"\b{n}\b", text) for n in names):
                taken.append(stem)
                text, grew = f"{text}\n{shared[stem]}", True
    css = json.dumps(WIDGET_CSS.read_text(encoding="utf-8"))
    parts = [f"const WIDGET_CSS = {css};"] if "WIDGET_CSS" in text else []
    parts += [f"// js/shared/{stem}.js\n{shared[stem]}" for stem in sorted(taken)]
    return "\n".join([*parts, f"// js/{name}.js\n{module}"])


def _code(path: pathlib.Path) -> str:
    """A shared file without its comment lines: the page carries code only."""
    lines = path.read_text(encoding="utf-8").strip().splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith("//"))


# a top-level declaration in js/shared/*.js (helper names are plain identifiers)
_TOP_LEVEL = re.compile(r"^(?:function|const|let)\s+([A-Za-z_]\w*)", re.M)


def in_range(name: str, value: Any, size: int) -> int:
    """``value`` as an int, for a ``@t.validate`` method: one of positions 0..size − 1 of
    what trait ``name`` picks, or anything while there is nothing to pick (size 0)."""
    value = int(value)
    if size and not 0 <= value < size:
        raise t.TraitError(f"{name} must be in 0..{size - 1}; got {value}")
    return value


def to_jsonable(array: Any, decimals: int = 3) -> Any:
    """A tensor or array as nested lists of plain numbers, rounded for the page.

    Floats are rounded to ``decimals`` places (3 keeps a heatmap exact to the eye and the
    page small); NaN and ±inf become ``None`` (JSON has no NaN); integer and bool arrays
    stay integers and bools. Scalars come back as scalars.
    """
    if hasattr(array, "detach"):  # torch.Tensor, without importing torch here
        array = array.detach().cpu().numpy()
    a = np.asarray(array)
    if a.dtype == object:
        raise TypeError(
            "to_jsonable needs a numeric tensor or array (or ragged lists converted "
            f"one by one); got an object array from {type(array).__name__}"
        )
    if a.dtype.kind in "biu":
        return a.tolist()
    if a.dtype.kind != "f":
        raise TypeError(f"to_jsonable needs numbers; got dtype {a.dtype}")
    rounded = np.round(a.astype(np.float64), decimals) + 0.0  # + 0.0: no "-0.0"
    if np.isfinite(rounded).all():
        return rounded.tolist()
    return _none_for_nonfinite(rounded.tolist())


def _none_for_nonfinite(x: Any) -> Any:
    if isinstance(x, list):
        return [_none_for_nonfinite(v) for v in x]
    return x if math.isfinite(x) else None


def _script_json(value: Any) -> str:
    """JSON that is safe inside ``<script>``: no ``<``, ``>`` or ``&`` can end or open tags."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


# The loader for html mode. It reads the state and the module source from the two JSON
# blocks next to the widget's root, imports the module from a Blob URL (once per page
# and module) and renders it against a stand-in for the anywidget model.
_LOADER = """(function () {
  var id = "%(id)s", el = document.getElementById(id);
  function read(suffix) {
    return JSON.parse(document.getElementById(id + suffix).textContent);
  }
  var state = read("-state"), source = read("-esm"), listeners = {};
  var cache = (window.__courseWidgetModules = window.__courseWidgetModules || {});
  if (!cache[source]) {
    var url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    cache[source] = import(url);
  }
  function same(a, b) { return a === b || JSON.stringify(a) === JSON.stringify(b); }
  function fire(event, args) {
    (listeners[event] || []).slice().forEach(function (cb) { cb.apply(null, args); });
  }
  var model = {
    get: function (key) { return state[key]; },
    set: function (key, value) {
      var old = state[key];
      state[key] = value;
      if (!same(old, value)) {
        fire("change:" + key, [model, value]);
        fire("change", [model]);
      }
    },
    on: function (event, cb) { (listeners[event] = listeners[event] || []).push(cb); },
    off: function (event, cb) {
      if (!event) { listeners = {}; return; }
      listeners[event] = cb ? (listeners[event] || []).filter(function (f) {
        return f !== cb;
      }) : [];
    },
    save_changes: function () {},
    send: function () {}
  };
  cache[source].then(async function (mod) {
    var widget = mod.default;
    if (typeof widget === "function") widget = await widget();
    if (widget.initialize) await widget.initialize({ model: model });
    el.textContent = "";
    await widget.render({ model: model, el: el });
  }).catch(function (err) {
    el.textContent = "This widget could not start: " + err;
    console.error(err);
  });
})();"""


class CourseWidget(anywidget.AnyWidget):
    """Base class of the course's widgets: precomputed traits, one JS module, two modes.

    Subclasses set ``_esm = js_path("<name>")`` (read once when the class is defined, with
    the shared files of ``js/shared`` in front: see ``js_source``; no file
    watching), declare their data as traits with ``.tag(sync=True)``, fill them with
    ``to_jsonable`` in ``__init__`` and implement ``static_figure``. ``_kernel`` tells the
    JS whether a kernel is behind the model (false in ``html`` mode).
    """

    _kernel = t.Bool(True).tag(sync=True)
    _esm_source: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # anywidget turns a path-valued _esm into a FileContents, which may start a file
        # watcher (ANYWIDGET_HMR=1). We read the module here instead, so _esm is plain
        # text by the time anywidget looks at it and the widget never watches files.
        esm = cls.__dict__.get("_esm")
        if isinstance(esm, str) and esm.strip().endswith((".js", ".mjs")):
            esm = pathlib.Path(esm)  # a path given as text
        if isinstance(esm, pathlib.Path):
            if esm.resolve().parent == JS_DIR and esm.suffix == ".js":
                esm = js_source(esm.stem)  # a course module: the shared helpers first
            else:
                esm = esm.read_text(encoding="utf-8")
            cls._esm = esm
        if isinstance(esm, str):
            cls._esm_source = esm
        super().__init_subclass__(**kwargs)

    def __init__(self, **kwargs: Any) -> None:
        self._html_mode = widget_mode() == "html"
        super().__init__(**kwargs)
        if self._html_mode:
            self._kernel = False

    def open(self) -> None:
        """Open the comm to the front end, except in ``html`` mode (no widget state)."""
        if getattr(self, "_html_mode", False):
            return
        super().open()

    # -- html mode -----------------------------------------------------------------
    def _data_trait_names(self) -> list[str]:
        """The synced traits the JS reads: the subclass's own, plus ``_kernel``."""
        # anywidget adds _esm and _anywidget_id as instance traits: leave them out
        base = set(anywidget.AnyWidget.class_trait_names(sync=True))
        base |= {"_esm", "_css", "_anywidget_id"}
        return sorted(set(type(self).class_trait_names(sync=True)) - base)

    def html_state(self) -> dict[str, Any]:
        """The data the JS reads in ``html`` mode (``_kernel`` is false there)."""
        state = self.get_state(key=self._data_trait_names())
        state["_kernel"] = False
        return state

    def to_html(self, static_png: bytes | None = None) -> str:
        """The widget as self-contained HTML: root div, JSON state, module, loader.

        ``static_png`` (the static figure) goes inside the ``<noscript>``: a browser
        without scripts shows it where the widget would be, any other the widget alone.
        """
        state_json = _script_json(self.html_state())
        esm_json = _script_json(self._esm_source)
        digest = hashlib.sha1((state_json + esm_json).encode()).hexdigest()[:10]
        uid = f"cw-{type(self).__name__.lower()}-{digest}-{next(_ids)}"
        loader = _LOADER % {"id": uid}
        fallback = "This interactive figure needs JavaScript."
        if static_png is not None:
            data = base64.b64encode(static_png).decode("ascii")
            fallback = (
                "This interactive figure needs JavaScript; its default state:"
                f'<br><img src="data:image/png;base64,{data}" '
                'alt="the widget\'s default state" style="max-width:100%">'
            )
        return (
            f'<div class="course-widget" id="{uid}" '
            f'data-course-widget="{type(self).__name__}">'
            f"<noscript>{fallback}</noscript></div>\n"
            f'<script type="application/json" id="{uid}-state">{state_json}</script>\n'
            f'<script type="application/json" id="{uid}-esm">{esm_json}</script>\n'
            f"<script>{loader}</script>\n"
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        if self._html_mode or widget_mode() == "html" or self.comm is None:
            return {"text/html": self.to_html(), "text/plain": self._plain_text()}
        return super()._repr_mimebundle_(**kwargs)

    def _plain_text(self) -> str:
        return f"<{type(self).__name__}: open the page or notebook with JavaScript>"

    # -- static figure -------------------------------------------------------------
    def static_figure(self):
        """A matplotlib Figure of the default state; every subclass implements it."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement static_figure()"
        )

    def show(self) -> None:
        """Display the widget where it can run, its static figure where it cannot."""
        show(self)


def _figure_png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    return buffer.getvalue()


def show(widget: CourseWidget) -> None:
    """Display ``widget``, or its static figure (a PNG) where the widget cannot run.

    One output, never both stacked. Live: a bundle of the widget view and the PNG, so a
    front end with a widget manager shows the widget and any other (an untrusted notebook,
    nbviewer, a PDF) the figure. In ``html`` mode (the book): the self-contained widget,
    the PNG inside its ``<noscript>``. The PNG is rendered here rather than left to a
    matplotlib display hook, so it exists whether or not pyplot was imported.
    """
    from IPython.display import display

    if not isinstance(widget, CourseWidget):
        raise TypeError(f"show() needs a CourseWidget; got {type(widget).__name__}")
    png = _figure_png(widget.static_figure())
    bundle = widget._repr_mimebundle_()
    data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
    data = dict(data)
    if "text/html" in data:  # html mode: the PNG waits in the <noscript>
        data["text/html"] = widget.to_html(static_png=png)
    else:
        data["image/png"] = base64.b64encode(png).decode("ascii")
    display(data, metadata=metadata or {}, raw=True)
