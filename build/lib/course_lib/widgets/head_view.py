"""HeadView: every layer × head of a Transformer's attention, token by token. Chapter 8.

Like bertviz's head view, and it also works in the static book: for one sentence pair, the
weights of encoder self-attention, decoder self-attention and cross-attention are
precomputed for every layer and head (``Transformer.attention``) and stored, rounded. The
front end (``js/head_view.js``) shows a grid of thumbnails (rows = layers, columns =
heads); clicking one shows that head as lines from each query token (left) to the key
tokens (right), thicker and darker for larger weights, and hovering a token keeps only its
lines (a query's row, or a key's column). ``static_figure`` draws the grid as heatmaps.

Shape legend: L layers, H heads, S source length, T target length.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import traitlets as t
from matplotlib.figure import Figure

from course_lib.widgets.base import CourseWidget, js_path, to_jsonable

__all__ = ["KINDS", "HeadView"]

# kind -> (query side, key side, description)
KINDS = {
    "encoder": ("src", "src", "encoder self-attention"),
    "decoder": ("tgt", "tgt", "decoder self-attention (causal)"),
    "cross": ("tgt", "src", "cross-attention (decoder → encoder)"),
}


def _weights(value: Any, kind: str) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    w = np.asarray(value, dtype=np.float64)
    if w.ndim != 4:
        raise ValueError(
            f"attention[{kind!r}] must be (L, H, T_q, T_k) for one sentence; got shape {w.shape}"
        )
    return w


class HeadView(CourseWidget):
    """Attention of every layer and head, for one source and target sentence.

    Args:
        attention: {"encoder": (L, H, S, S), "decoder": (L, H, T, T), "cross": (L, H, T, S)}
            (any non-empty subset), weights for one sentence pair (index the batch first).
        src_tokens: S source tokens; tgt_tokens: T target tokens (the decoder's input).
        kind, layer, head: what is on show first.
    """

    _esm = js_path("head_view")

    attention = t.Dict(help="kind -> (L, H, T_q, T_k) rounded weights").tag(sync=True)
    src_tokens = t.List(t.Unicode()).tag(sync=True)
    tgt_tokens = t.List(t.Unicode()).tag(sync=True)
    kind = t.Unicode("cross").tag(sync=True)
    layer = t.Int(0).tag(sync=True)
    head = t.Int(0).tag(sync=True)
    title = t.Unicode("").tag(sync=True)

    def __init__(
        self,
        attention: Mapping[str, Any],
        src_tokens: Sequence[str],
        tgt_tokens: Sequence[str] | None = None,
        *,
        kind: str | None = None,
        layer: int = 0,
        head: int = 0,
        title: str = "",
        decimals: int = 3,
    ) -> None:
        if not isinstance(attention, Mapping) or not attention:
            raise ValueError(
                "attention must be a non-empty dict with keys among "
                f"{sorted(KINDS)}; got {type(attention).__name__}"
            )
        unknown = set(attention) - set(KINDS)
        if unknown:
            raise ValueError(
                f"unknown attention kinds {sorted(unknown)}; use {sorted(KINDS)}"
            )
        tokens = {
            "src": [str(s) for s in src_tokens],
            "tgt": [str(s) for s in (tgt_tokens or [])],
        }
        packed = {}
        for name, value in attention.items():
            w = _weights(value, name)
            q_side, k_side, _ = KINDS[name]
            want = (len(tokens[q_side]), len(tokens[k_side]))
            if w.shape[2:] != want:
                raise ValueError(
                    f"attention[{name!r}] has (T_q, T_k) = {w.shape[2:]}, but the tokens give "
                    f"{want} ({q_side}_tokens × {k_side}_tokens)"
                )
            packed[name] = to_jsonable(w, decimals)
        kind = kind or ("cross" if "cross" in packed else next(iter(packed)))
        if kind not in packed:
            raise ValueError(f"kind must be one of {sorted(packed)}; got {kind!r}")
        L, H = np.shape(packed[kind])[:2]
        if not (0 <= layer < L and 0 <= head < H):
            raise ValueError(
                f"layer, head must be in 0..{L - 1}, 0..{H - 1}; got {layer}, {head}"
            )
        super().__init__(
            attention=packed,
            src_tokens=tokens["src"],
            tgt_tokens=tokens["tgt"],
            kind=kind,
            layer=layer,
            head=head,
            title=str(title),
        )

    def weights(self, kind: str | None = None) -> np.ndarray:
        """The rounded weights of ``kind`` (default: the one on show): (L, H, T_q, T_k)."""
        return np.array(self.attention[kind or self.kind], dtype=np.float64)

    def _plain_text(self) -> str:
        L, H = self.weights().shape[:2]
        return f"HeadView({self.kind}: {L} layers × {H} heads)"

    def static_figure(self, kind: str | None = None) -> Figure:
        """Every layer × head of ``kind`` as heatmaps, queries as rows, keys as columns."""
        kind = kind or self.kind
        w = self.weights(kind)
        L, H = w.shape[:2]
        q_side, k_side, desc = KINDS[kind]
        rows = self.src_tokens if q_side == "src" else self.tgt_tokens
        cols = self.src_tokens if k_side == "src" else self.tgt_tokens
        size = 0.16 * max(len(rows), len(cols)) + 1.2
        fig = Figure(figsize=(size * H + 1, size * L + 0.6), layout="constrained")
        axes = fig.subplots(L, H, squeeze=False)
        for layer in range(L):
            for head in range(H):
                ax = axes[layer][head]
                ax.imshow(w[layer, head], cmap="viridis", vmin=0, vmax=1, aspect="auto")
                ax.set_xticks(range(len(cols)))
                ax.set_yticks(range(len(rows)))
                ax.set_xticklabels(
                    cols if layer == L - 1 else [], rotation=90, fontsize=7
                )
                ax.set_yticklabels(rows if head == 0 else [], fontsize=7)
                ax.tick_params(length=0)
                if layer == 0:
                    ax.set_title(f"head {head}", fontsize=9)
                if head == 0:
                    ax.set_ylabel(f"layer {layer}", fontsize=9)
        fig.suptitle(self.title or desc)
        return fig
