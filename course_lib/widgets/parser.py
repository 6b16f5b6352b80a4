r"""ParserStateExplorer: step through a transition-based parse, state by state. Chapter 4.

CS224N lecture 4 (arc-standard parsing; Chen & Manning 2014). For a few sentences Python
precomputes every configuration of the greedy parse (or of the static oracle, with no model):
the stack, the buffer, the arcs so far, the transition taken and the model's most probable
transitions p(t | c) there. The view steps forward and back through them, draws the arcs as a
dependency arc diagram (SVG) with the gold tree below for comparison, and a select control
chooses the sentence. With a kernel, a text box parses a new sentence (``word/UPOS`` tokens);
it is hidden in ``html`` mode. Front end: ``js/parser.js``.

``static_figure`` draws the final tree with ``course_lib.parsing.draw.dependency_arcs``
above a table of the states.

Size legend (the traits hold JSON lists, not tensors): n words per sentence, positions
0..n (0 = ROOT; ``next`` = n + 1 when the buffer is empty), 2n + 1 states per sentence
(c₀ and one after each of the 2n transitions), k = ``top_k`` transitions kept per state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import traitlets as t
from matplotlib.figure import Figure

from course_lib.parsing import (
    ParserVocabs,
    oracle_trace,
    parse_one,
)
from course_lib.parsing.draw import dependency_arcs
from course_lib.parsing.evaluation import attachment_scores
from course_lib.widgets.base import js_path
from course_lib.widgets.stepper import SteppedRecords

__all__ = ["ParserStateExplorer", "parse_tagged_text"]


def parse_tagged_text(text: str) -> tuple[list[str], list[str]]:
    """``"I/PRON ate/VERB fish/NOUN"`` as (words, tags); the tag follows the last ``/``."""
    tokens = text.split()
    if not tokens:
        raise ValueError(
            "type a sentence as word/UPOS tokens, e.g. I/PRON ate/VERB fish/NOUN"
        )
    words, tags = [], []
    for token in tokens:
        word, slash, tag = token.rpartition("/")
        if not slash or not word or not tag:
            raise ValueError(
                f"token {token!r} has no tag: write each token as word/UPOS, "
                "e.g. I/PRON ate/VERB fish/NOUN"
            )
        words.append(word)
        tags.append(tag)
    return words, tags


def _sentence_record(
    sentence: Any,
    name: str,
    model: torch.nn.Module | None,
    vocabs: ParserVocabs | None,
    top_k: int,
    device: torch.device | str | None,
    decimals: int,
) -> dict:
    """Every state of one sentence's parse, as plain JSON for the view."""
    if hasattr(sentence, "words"):
        words, tags = list(sentence.words), list(sentence.upos)
        gold_heads = list(getattr(sentence, "heads", []) or []) or None
        gold_labels = list(getattr(sentence, "deprels", []) or []) or None
    else:
        words, tags = list(sentence[0]), list(sentence[1])
        gold_heads = list(sentence[2]) if len(sentence) > 2 else None
        gold_labels = list(sentence[3]) if len(sentence) > 3 else None
    if model is None:
        if gold_heads is None or gold_labels is None:
            raise ValueError(
                f"sentence {name!r} has no gold tree; without a model the widget shows "
                "the static oracle's path, which needs one"
            )
        trace = [(c, tr, ()) for c, tr in oracle_trace(words, gold_heads, gold_labels)]
    else:
        _, steps = parse_one(model, vocabs, words, tags, top_k=top_k, device=device)
        trace = [(s.config, s.transition, s.top) for s in steps]
    n, records, previous = len(words), [], 0
    for config, transition, top in trace:
        new_arc = None
        if len(config.arcs) > previous:
            h, d, label = config.arcs[-1]
            new_arc = [h, d, label]
        previous = len(config.arcs)
        records.append(
            {
                "stack": list(config.stack),
                "next": config.buffer[0] if config.buffer else n + 1,
                "t": "" if transition is None else str(transition),
                "top": [[tname, round(p, decimals)] for tname, p in top],
                "arc": new_arc,
            }
        )
    final = trace[-1][0]
    score = ""
    if gold_heads is not None and gold_labels is not None:
        s = attachment_scores(
            [(gold_heads, gold_labels)], [(final.heads(), final.deprels())]
        )
        score = f"UAS {s.n_heads_correct}/{n}, LAS {s.n_both_correct}/{n}"
    return {
        "name": name,
        "words": words,
        "tags": tags,
        "gold_heads": gold_heads,
        "gold_labels": gold_labels,
        "steps": records,
        "score": score,
    }


class ParserStateExplorer(SteppedRecords):
    """Step forward and back through the parse of a few sentences; compare with the gold tree.

    sentences: Sentence-like objects (``.words .upos``, and ``.heads .deprels`` for the gold
    tree) or tuples (words, tags[, heads, deprels]). model, vocabs: a trained
    :class:`~course_lib.parsing.ChenManningParser` and its ``ParserVocabs``; with
    ``model=None`` the states are the static oracle's (gold trees needed) and no
    probabilities are shown. names: one label per sentence for the select control (default:
    the first words). top_k: how many transitions' probabilities each state keeps.
    """

    _esm = js_path("parser")

    records_trait = "sentences"
    sentences = t.List(help="per sentence: words, tags, gold tree, steps, score").tag(
        sync=True
    )
    index = t.Int(0, help="the sentence on show").tag(sync=True)
    step = t.Int(0, help="the state on show (0 = initial)").tag(sync=True)
    title = t.Unicode("").tag(sync=True)
    has_model = t.Bool(True).tag(sync=True)
    request = t.Unicode("", help="kernel only: 'word/UPOS …' to parse").tag(sync=True)
    error = t.Unicode("", help="why the last request failed").tag(sync=True)

    def __init__(
        self,
        sentences: Sequence[Any],
        model: torch.nn.Module | None = None,
        vocabs: ParserVocabs | None = None,
        *,
        names: Sequence[str] | None = None,
        top_k: int = 4,
        title: str = "",
        index: int = 0,
        device: torch.device | str | None = None,
        decimals: int = 3,
    ) -> None:
        if isinstance(sentences, str) or not isinstance(sentences, Sequence):
            raise TypeError(
                "sentences must be a list of sentences or (words, tags) tuples"
            )
        if not sentences:
            raise ValueError("sentences is empty: give at least one sentence")
        if (model is None) != (vocabs is None):
            raise ValueError(
                "pass model and vocabs together (or neither, for the oracle)"
            )
        if not isinstance(top_k, int) or top_k < 1:
            raise ValueError(f"top_k must be a positive int, got {top_k!r}")
        if names is None:
            names = [self._default_name(s) for s in sentences]
        names = [str(x) for x in names]
        if len(names) != len(sentences):
            raise ValueError(
                f"names needs one name per sentence: expected {len(sentences)}, "
                f"got {len(names)}"
            )
        if not 0 <= index < len(sentences):
            raise ValueError(f"index must be in 0..{len(sentences) - 1}; got {index}")
        self._model, self._vocabs, self._device = model, vocabs, device
        self._top_k, self._decimals = top_k, decimals
        records = [self._record(s, n) for s, n in zip(sentences, names, strict=True)]
        super().__init__(
            sentences=records,
            index=int(index),
            step=0,
            title=str(title),
            has_model=model is not None,
        )

    @staticmethod
    def _default_name(sentence: Any) -> str:
        words = list(sentence.words if hasattr(sentence, "words") else sentence[0])
        text = " ".join(words[:6])
        return text + (" …" if len(words) > 6 else "")

    def _record(self, sentence: Any, name: str) -> dict:
        return _sentence_record(
            sentence,
            name,
            self._model,
            self._vocabs,
            self._top_k,
            self._device,
            self._decimals,
        )

    @t.observe("request")
    def _parse_request(self, change: dict) -> None:
        text = change["new"].strip()
        if not text:
            return
        try:
            if self._model is None:
                raise ValueError(
                    "this widget has no model: it can only show gold trees"
                )
            words, tags = parse_tagged_text(text)
            record = self._record((words, tags), self._default_name((words, tags)))
        except ValueError as err:
            self.error = str(err)
        else:
            self.error = ""
            self.sentences = [*self.sentences, record]
            self.index = len(self.sentences) - 1
            self.step = 0
        self.request = ""

    def add_sentence(self, words: Sequence[str], tags: Sequence[str]) -> None:
        """Parse a new sentence with the model and show it (what the text box does)."""
        self.request = " ".join(f"{w}/{tg}" for w, tg in zip(words, tags, strict=True))
        if self.error:
            raise ValueError(self.error)

    def state(self, index: int | None = None, step: int | None = None) -> dict:
        """One precomputed state: stack, buffer, arcs so far, transition taken, top-k."""
        record = self.sentences[self.index if index is None else index]
        k = self.step if step is None else step
        steps = record["steps"]
        s = steps[k]
        n = len(record["words"])
        return {
            "stack": s["stack"],
            "buffer": list(range(s["next"], n + 1)),
            "arcs": [x["arc"] for x in steps[1 : k + 1] if x["arc"] is not None],
            "transition": s["t"],
            "top": s["top"],
        }

    def _plain_text(self) -> str:
        r = self.sentences[self.index]
        return (
            f"ParserStateExplorer({len(self.sentences)} sentences; {r['name']!r}: "
            f"{len(r['steps'])} states)"
        )

    def static_figure(self, max_rows: int = 16) -> Figure:
        """The final tree of the current sentence (gold below) above a table of its states.

        At most ``max_rows`` states are listed (the first ones and the last).
        """
        record = self.sentences[self.index]
        words, steps = record["words"], record["steps"]
        final = self.state(step=len(steps) - 1)
        n = len(words)
        heads, labels = [-1] * n, [""] * n
        for h, d, label in final["arcs"]:
            heads[d - 1], labels[d - 1] = h, label
        rows = list(range(len(steps)))
        if len(rows) > max_rows:
            rows = rows[: max_rows - 2] + [-1] + rows[-1:]
        width = max(6.0, 0.85 * (n + 1))
        arcs_height = 2.2 + 0.4 * n**0.5
        fig = Figure(
            figsize=(width, arcs_height + 0.26 * len(rows)), layout="constrained"
        )
        top, bottom = fig.subplots(
            2, 1, gridspec_kw={"height_ratios": [arcs_height, 0.26 * len(rows) + 0.3]}
        )
        dependency_arcs(
            words,
            heads,
            labels,
            ax=top,
            gold_heads=record["gold_heads"],
            gold_labels=record["gold_labels"],
            title=record["name"]
            + (f"  ({record['score']})" if record["score"] else ""),
        )
        names = ["ROOT", *words]
        table = []
        for k in rows:
            if k < 0:
                table.append(["…", "…", "…", "…", ""])
                continue
            state = self.state(step=k)
            best = state["top"][0] if state["top"] else None
            table.append(
                [
                    str(k),
                    " ".join(names[i] for i in state["stack"]),
                    " ".join(names[i] for i in state["buffer"][:4])
                    + (" …" if len(state["buffer"]) > 4 else ""),
                    state["transition"] or "(done)",
                    f"{best[1]:.2f}" if best else "",
                ]
            )
        bottom.axis("off")
        cols = ["state", "stack", "buffer", "transition taken", "p"]
        tab = bottom.table(
            cellText=table, colLabels=cols, loc="upper center", cellLoc="left"
        )
        tab.auto_set_font_size(False)
        tab.set_fontsize(8)
        tab.auto_set_column_width(list(range(len(cols))))
        if self.title:
            fig.suptitle(self.title)
        return fig
