"""CTCAlignmentExplorer: the CTC trellis of a few utterances, the best path, a time step.

Chapter 10. For each utterance, the state posteriors α_t(s)β_t(s) / (y_t(l'_s) p) over
frames × extended label (blanks between the symbols; Graves et al., 2006, eq. 14), the
most probable alignment (Viterbi) over them, and for every frame t the output that the
path's prefix π_1..π_t collapses to. All of it is precomputed and rounded, so the step
slider works without a kernel. The grid reuses the heatmap family's helpers
(``heatmapParts``/``gridCursor`` in ``js/shared/grid.js``). Front end: ``js/ctc_alignment.js``.

Shape legend: T frames (output steps), C classes, S' = 2S + 1 extended-label states.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
import traitlets as t
from matplotlib.figure import Figure

from course_lib import viz
from course_lib.speech.ctc import collapse, ctc_posteriors, extend_labels, viterbi_path
from course_lib.widgets.base import CourseWidget, in_range, js_path, to_jsonable

__all__ = ["CTCAlignmentExplorer"]


class CTCAlignmentExplorer(CourseWidget):
    """The trellis (rows: extended label, columns: frames) of each utterance.

    utterances: ``(name, log_probs (T, C), label)`` triples, label a list of class
    indices; symbols: C names, ``symbols[blank]`` shown for the blank (e.g. "_").
    Controls: the utterance, and a step t along time; the best path up to t is outlined
    and the readout gives the collapsed output of its first t + 1 frames.
    """

    _esm = js_path("ctc_alignment")

    names = t.List(t.Unicode()).tag(sync=True)
    states = t.List(help="per utterance, S' row labels").tag(sync=True)
    trellis = t.List(help="per utterance, (S', T) posteriors, rounded").tag(sync=True)
    paths = t.List(help="per utterance, T state indices of the best path").tag(
        sync=True
    )
    outputs = t.List(help="per utterance, T collapsed prefixes").tag(sync=True)
    title = t.Unicode("").tag(sync=True)
    index = t.Int(0).tag(sync=True)
    step = t.Int(0).tag(sync=True)

    def __init__(
        self,
        utterances: Sequence[tuple[str, torch.Tensor, Sequence[int]]],
        symbols: Sequence[str],
        *,
        blank: int = 0,
        title: str = "",
        decimals: int = 3,
    ) -> None:
        if not utterances:
            raise ValueError(
                "utterances is empty; pass (name, log_probs, label) triples"
            )
        names, states, trellis, paths, outputs = [], [], [], [], []
        for name, log_probs, label in utterances:
            lp = torch.as_tensor(log_probs, dtype=torch.float64)
            if lp.dim() != 2 or lp.size(1) != len(symbols):
                raise ValueError(
                    f"{name!r}: log_probs must be (T, C) with C = len(symbols) = "
                    f"{len(symbols)}; got {tuple(lp.shape)}"
                )
            label = [int(k) for k in label]
            if not label:
                raise ValueError(f"{name!r}: the label is empty")
            tgt = torch.tensor([label])
            T = lp.size(0)
            post, log_p = ctc_posteriors(
                lp[None], tgt, torch.tensor([T]), torch.tensor([len(label)]), blank
            )
            if not torch.isfinite(log_p).all():
                raise ValueError(f"{name!r}: {T} frames cannot hold its label")
            ext = extend_labels(tgt, blank)[0].tolist()  # (S',)
            path = viterbi_path(lp, label, blank)  # T states
            symbols_on_path = [ext[s] for s in path]
            names.append(str(name))
            states.append([symbols[k] for k in ext])
            trellis.append(to_jsonable(post[0].exp().T, decimals))  # (S', T)
            paths.append(path)
            outputs.append(
                [
                    " ".join(
                        symbols[k] for k in collapse(symbols_on_path[: i + 1], blank)
                    )
                    for i in range(T)
                ]
            )
        super().__init__(
            names=names,
            states=states,
            trellis=trellis,
            paths=paths,
            outputs=outputs,
            title=str(title),
            index=0,
            step=0,
        )

    @t.validate("index")
    def _check_index(self, proposal: dict) -> int:
        return in_range("index", proposal["value"], len(self.names))

    @t.validate("step")
    def _check_step(self, proposal: dict) -> int:
        T = len(self.paths[self.index]) if self.paths else 0
        return in_range("step", proposal["value"], T)

    @t.observe("index")
    def _keep_step_in_range(self, change: dict) -> None:
        """Another utterance may be shorter: its last frame, not a frame past its end."""
        self.step = min(self.step, len(self.paths[self.index]) - 1)

    def _plain_text(self) -> str:
        return f"CTCAlignmentExplorer({len(self.names)} utterances: {', '.join(self.names)})"

    def static_figure(self) -> Figure:
        """The current utterance's trellis with its best path drawn over it."""
        i = self.index
        m = np.array(
            [[np.nan if v is None else v for v in row] for row in self.trellis[i]]
        )  # (S', T)
        T = m.shape[1]
        fig = Figure(
            figsize=(min(14, 2 + 0.12 * T), 1.2 + 0.28 * m.shape[0]),
            layout="constrained",
        )
        ax = fig.subplots()
        viz.heatmap(
            m,
            self.states[i],
            None,
            ax=ax,
            vmin=0,
            vmax=1,
            title=f"{self.names[i]}: state posteriors and the best path",
        )
        ax.plot(range(T), self.paths[i], color="white", lw=1.5, marker=".", ms=3)
        ax.set_xlabel("output step t")
        step = max(1, T // 12)
        ax.set_xticks(range(0, T, step), [str(k) for k in range(0, T, step)])
        return fig
