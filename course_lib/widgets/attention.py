r"""AttentionExplorer: source × target attention for several sentences, maps and candidates.

Chapter 7 shows, for dev sentences, the neural decoder's attention beside IBM Model 1's
alignment posterior, and the beam's n-best candidates with their scores; Chapter 8 reuses it
for self- and cross-attention across layers and heads. The data is a list of *examples*,
each a stack of named (T_tgt, T_src) weight matrices with their token labels
(:func:`attention_example`), optionally with candidates (:func:`attention_candidate`) that
carry their own target tokens and maps; both are built in
``course_lib.widgets.attention_examples`` and re-exported here. Everything is precomputed
and rounded into the traits, so the view works without a kernel
(``COURSE_WIDGET_MODE=html``); with a kernel and a ``translate`` function, a text box adds
a new sentence. Front end: ``js/attention.js``
(the heatmap of ``js/heatmap.js``, extended with the selectors and the candidate list).

Shape letters: M maps, T target tokens (rows), S source tokens (columns).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import traitlets as t
from matplotlib.figure import Figure

from course_lib import viz
from course_lib.widgets.attention_examples import (  # re-exported for older imports
    attention_candidate,
    attention_example,
    translation_example,
)
from course_lib.widgets.base import CourseWidget, in_range, js_path

__all__ = [
    "AttentionExplorer",
    "attention_candidate",
    "attention_example",
    "translation_example",
]


class AttentionExplorer(CourseWidget):
    """Attention heatmaps (target rows × source columns) for a list of examples. Ch. 7, 8.

    examples: dicts from :func:`attention_example`. The view: a sentence selector, a map
    selector (e.g. ``neural attention`` / ``IBM Model 1``, or ``layer 2 · head 5``), the
    heatmap with the weight under the cursor, and the candidates with their scores (a click
    shows a candidate's own attention when it has maps). ``translate``: with a kernel,
    ``translate(text) -> example`` for the text box (hidden in the static book).
    ``value_range``: the colour scale, [0, 1] for attention weights.
    """

    _esm = js_path("attention")

    examples = t.List(
        help="per sentence: source, target, map_names, maps, candidates"
    ).tag(sync=True)
    index = t.Int(0, help="the sentence on show").tag(sync=True)
    map_index = t.Int(0, help="the map on show").tag(sync=True)
    candidate = t.Int(-1, help="-1: the example's own target; k: candidate k").tag(
        sync=True
    )
    title = t.Unicode("").tag(sync=True)
    value_range = t.List(t.Float(), default_value=[0.0, 1.0], minlen=2, maxlen=2).tag(
        sync=True
    )
    can_translate = t.Bool(False).tag(sync=True)
    request = t.Unicode("", help="kernel only: a sentence to translate").tag(sync=True)
    error = t.Unicode("", help="why the last request failed").tag(sync=True)

    def __init__(
        self,
        examples: Sequence[dict],
        *,
        title: str = "",
        index: int = 0,
        map_index: int = 0,
        translate: Callable[[str], dict] | None = None,
        value_range: tuple[float, float] = (0.0, 1.0),
    ) -> None:
        if isinstance(examples, dict):
            examples = [examples]
        if not isinstance(examples, Sequence) or not examples:
            raise ValueError(
                "examples must be a non-empty list of attention_example() dicts"
            )
        for k, ex in enumerate(examples):
            if not isinstance(ex, dict) or "maps" not in ex:
                raise TypeError(f"example {k} must come from attention_example()")
        if not 0 <= index < len(examples):
            raise ValueError(f"index must be in 0..{len(examples) - 1}; got {index}")
        if not 0 <= map_index < len(examples[index]["map_names"]):
            raise ValueError(
                f"map_index out of range for example {index}; got {map_index}"
            )
        lo, hi = (float(v) for v in value_range)
        if not lo < hi:
            raise ValueError(
                f"value_range must be (vmin, vmax) with vmin < vmax; got {value_range}"
            )
        if translate is not None and not callable(translate):
            raise TypeError(
                "translate must be a function text -> attention_example(...)"
            )
        self._translate = translate
        super().__init__(
            examples=list(examples),
            index=int(index),
            map_index=int(map_index),
            title=str(title),
            value_range=[lo, hi],
            can_translate=translate is not None,
        )

    @classmethod
    def from_stack(
        cls,
        weights: Any,
        source: Sequence[str],
        target: Sequence[str] | None = None,
        *,
        names: Sequence[str] | None = None,
        title: str = "",
    ) -> AttentionExplorer:
        """One sentence's stack of weights: (T, S), (M, T, S) or (L, H, T, S) (Chapter 8).

        target defaults to source (self-attention).
        """
        example = attention_example(
            source, source if target is None else target, weights, names=names
        )
        return cls([example], title=title)

    @t.validate("index")
    def _check_index(self, proposal: dict) -> int:
        return in_range("index", proposal["value"], len(self.examples))

    @t.observe("index")
    def _reset_view(self, change: dict) -> None:
        self.candidate = -1
        names = self.examples[self.index]["map_names"]
        if self.map_index >= len(names):
            self.map_index = 0

    @t.observe("request")
    def _on_request(self, change: dict) -> None:
        text = change["new"].strip()
        if not text:
            return
        try:
            if self._translate is None:
                raise ValueError("this widget has no translate function")
            example = self._translate(text)
            if not isinstance(example, dict) or "maps" not in example:
                raise TypeError("translate must return an attention_example() dict")
        except (ValueError, TypeError, KeyError) as err:
            self.error = str(err)
        else:
            self.error = ""
            self.examples = [*self.examples, example]
            self.index = len(self.examples) - 1
        self.request = ""

    def add(self, text: str) -> None:
        """Translate ``text`` and show it (what the text box does); raises on failure."""
        self.request = text
        if self.error:
            raise ValueError(self.error)

    def view(self, index: int | None = None, candidate: int | None = None) -> dict:
        """What is on show: source, target, map names and (M, T, S) maps as arrays."""
        ex = self.examples[self.index if index is None else index]
        k = self.candidate if candidate is None else candidate
        target, maps = ex["target"], ex["maps"]
        if k >= 0:
            cand = ex["candidates"][k]
            if cand["maps"] is not None:
                target, maps = cand["tokens"], cand["maps"]
        values = np.array(
            [[[np.nan if v is None else v for v in row] for row in m] for m in maps],
            dtype=np.float64,
        ).reshape(len(maps), len(target), len(ex["source"]))
        return {
            "source": ex["source"],
            "target": target,
            "names": ex["map_names"],
            "maps": values,
        }

    def _plain_text(self) -> str:
        ex = self.examples[self.index]
        return (
            f"AttentionExplorer({len(self.examples)} sentences; {ex['name']!r}: "
            f"{len(ex['map_names'])} maps {len(ex['target'])}×{len(ex['source'])})"
        )

    def static_figure(self, max_panels: int = 4) -> Figure:
        """The current sentence's maps (up to ``max_panels``) and its candidates' scores."""
        v = self.view()
        n_maps = len(v["names"])
        order = [self.map_index] + [i for i in range(n_maps) if i != self.map_index]
        panels = sorted(order[: max(1, max_panels)])
        rows, cols = len(v["target"]), len(v["source"])
        cands = self.examples[self.index]["candidates"]
        w = max(2.8, 0.32 * cols + 1.8)
        h = max(2.4, 0.3 * rows + 1.6) + 0.22 * min(len(cands), 6)
        fig = Figure(figsize=(w * len(panels) + 0.8, h), layout="constrained")
        axes = fig.subplots(1, len(panels), squeeze=False)[0]
        lo, hi = self.value_range
        for k, (ax, i) in enumerate(zip(axes, panels, strict=True)):
            viz.heatmap(
                v["maps"][i],
                v["target"] if k == 0 else None,
                v["source"],
                ax=ax,
                title=v["names"][i],
                vmin=lo,
                vmax=hi,
                colorbar=False,
                annotate=len(panels) == 1 and rows <= 10 and cols <= 10,
            )
            ax.set_xlabel("source")
            if k == 0:
                ax.set_ylabel("target")
            else:
                ax.set_yticks([])
        fig.colorbar(axes[0].images[0], ax=list(axes), fraction=0.046, pad=0.02)
        name = self.examples[self.index]["name"]
        heading = f"{self.title}\n{name}" if self.title else name
        if cands:
            lines = [
                f"{j + 1}. {' '.join(c['tokens'])}"
                + ("" if c["score"] is None else f"   score {c['score']:.3f}")
                for j, c in enumerate(cands[:6])
            ]
            heading += "\n" + "\n".join(lines)
        fig.suptitle(heading, fontsize=9, ha="left", x=0.02)
        return fig
