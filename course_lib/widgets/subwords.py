"""SubwordExplorer: step through the merges BPE applies to a word, WordPiece beside it. Chapter 9.

CS224N lecture 9 (subword models; Sennrich et al., 2016). For a few chosen words (or short
texts) Python precomputes every segmentation on BPE's way from characters to the final
pieces: one state per merge, with the merged pair and its rank, then the final pieces with
their ids, and WordPiece's greedy longest-match-first split of the same text beside it.
The view steps forward and back through the merges and highlights the piece each merge
made; a select control chooses the word. With a kernel, a text box tokenizes new text (a
Python observer adds it); it is hidden in ``html`` mode. Front end: ``js/subwords.js``.

``static_figure`` draws the states of the word on show as rows of boxes, the final ids and
the WordPiece split below them.
"""

from __future__ import annotations

from collections.abc import Sequence

import traitlets as t
from matplotlib.figure import Figure

from course_lib.subwords import Tokenizer
from course_lib.widgets.base import js_path
from course_lib.widgets.stepper import SteppedRecords

__all__ = ["MAX_WORDS", "SubwordExplorer", "subword_record"]

MAX_WORDS = 12  # a text box request may hold at most this many words


def subword_record(
    text: str, bpe: Tokenizer, wordpiece: Tokenizer | None = None
) -> dict:
    """Every BPE state of ``text`` word by word, the final ids, WordPiece's split (JSON).

    Returns {"name", "words", "steps": [{"segs": pieces per word, "word": index of the
    word merged (None at the start), "at": position of the new piece, "rank": the merge's
    rank, "pair": [left, right]}], "ids": ids per word, "wordpiece": [[piece, id]] per
    word or None}. Raises ValueError when ``text`` has no words or more than MAX_WORDS,
    or a character BPE cannot map (plain BPE without an unknown token).
    """
    if not isinstance(bpe, Tokenizer) or bpe.kind not in ("bpe", "byte_bpe"):
        raise TypeError("bpe must be a Tokenizer of kind 'bpe' or 'byte_bpe'")
    if wordpiece is not None and (
        not isinstance(wordpiece, Tokenizer) or wordpiece.kind != "wordpiece"
    ):
        raise TypeError("wordpiece must be a Tokenizer of kind 'wordpiece' (or None)")
    words = [w for w, special in bpe.split_words(text) if not special]
    if not words:
        raise ValueError(f"text {text!r} has no words to tokenize")
    if len(words) > MAX_WORDS:
        raise ValueError(f"type at most {MAX_WORDS} words; got {len(words)}")
    per_word = [bpe.model.merge_steps(w) for w in words]  # raises on unknown characters
    segs = [steps[0][0] for steps in per_word]
    steps = [
        {
            "segs": [list(s) for s in segs],
            "word": None,
            "at": None,
            "rank": None,
            "pair": None,
        }
    ]
    for w, word_steps in enumerate(per_word):
        for (before, _), (after, rank) in zip(word_steps, word_steps[1:]):
            at = next(i for i, (x, y) in enumerate(zip(before, after)) if x != y)
            segs[w] = after
            steps.append(
                {
                    "segs": [list(s) for s in segs],
                    "word": w,
                    "at": at,
                    "rank": rank,
                    "pair": [before[at], before[at + 1]],
                }
            )
    ids = [[bpe.token_to_id(p) for p in s] for s in segs]
    wp = None
    if wordpiece is not None:
        wp_words = [w for w, special in wordpiece.split_words(text) if not special]
        wp = [
            [[p, wordpiece.token_to_id(p)] for p in wordpiece.model.split(w)]
            for w in wp_words
        ]
    return {"name": text, "words": words, "steps": steps, "ids": ids, "wordpiece": wp}


class SubwordExplorer(SteppedRecords):
    """BPE's merges on chosen words, step by step; final pieces and ids; WordPiece beside.

    Args:
        bpe: a trained ``Tokenizer`` of kind ``"bpe"`` or ``"byte_bpe"``.
        words: the words (or short texts) on offer, e.g. ["hat", "learn", "laern"].
        wordpiece: a ``Tokenizer`` of kind ``"wordpiece"`` to show beside, or None.
        title: shown above the view; index: the word on show first.
    """

    _esm = js_path("subwords")

    records_trait = "items"
    items = t.List(help="per word: name, words, steps, ids, wordpiece").tag(sync=True)
    index = t.Int(0, help="the word on show").tag(sync=True)
    step = t.Int(0, help="the state on show (0 = characters)").tag(sync=True)
    title = t.Unicode("").tag(sync=True)
    kind = t.Unicode("bpe").tag(sync=True)
    request = t.Unicode("", help="kernel only: text to tokenize").tag(sync=True)
    error = t.Unicode("", help="why the last request failed").tag(sync=True)

    def __init__(
        self,
        bpe: Tokenizer,
        words: Sequence[str],
        wordpiece: Tokenizer | None = None,
        *,
        title: str = "",
        index: int = 0,
    ) -> None:
        if isinstance(words, str) or not isinstance(words, Sequence) or not words:
            raise ValueError(
                "words must be a non-empty list of words, e.g. ['hat', 'learn']"
            )
        if not 0 <= index < len(words):
            raise ValueError(f"index must be in 0..{len(words) - 1}; got {index}")
        self._bpe, self._wordpiece = bpe, wordpiece
        items = [subword_record(str(w), bpe, wordpiece) for w in words]
        super().__init__(
            items=items, index=index, step=0, title=str(title), kind=bpe.kind
        )

    @t.observe("request")
    def _tokenize_request(self, change: dict) -> None:
        text = change["new"]
        if not text.strip():
            return
        try:
            record = subword_record(text, self._bpe, self._wordpiece)
        except ValueError as err:
            self.error = str(err)
        else:
            self.error = ""
            self.items = [*self.items, record]
            self.index = len(self.items) - 1
            self.step = 0
        self.request = ""

    def add_text(self, text: str) -> None:
        """Tokenize ``text`` and show it (what the text box does); errors raise ValueError."""
        self.request = text
        if self.error:
            raise ValueError(self.error)

    def _plain_text(self) -> str:
        item = self.items[self.index]
        return (
            f"SubwordExplorer({len(self.items)} words; {item['name']!r}: "
            f"{len(item['steps']) - 1} merges)"
        )

    def static_figure(self, max_rows: int = 14) -> Figure:
        """The BPE states of the word on show as rows of boxes; ids and WordPiece below."""
        item = self.items[self.index]
        steps = item["steps"]
        rows = list(range(len(steps)))
        if len(rows) > max_rows:
            rows = rows[: max_rows - 2] + [-1] + rows[-1:]
        lines = []  # (label, [pieces], highlighted (word, at) or None)
        for k in rows:
            if k < 0:
                lines.append(("…", [], None))
                continue
            s = steps[k]
            label = (
                "chars" if k == 0 else f"{k}: {'+'.join(s['pair'])} (rank {s['rank']})"
            )
            lines.append((label, s["segs"], (s["word"], s["at"])))
        lines.append(("ids", [[str(i) for i in w] for w in item["ids"]], None))
        if item["wordpiece"] is not None:
            lines.append(
                ("WordPiece", [[p for p, _ in w] for w in item["wordpiece"]], None)
            )
        width = max(
            sum(len(p) + 1 for w in segs for p in w) + 2 * len(segs)
            for _, segs, _ in lines
        )
        # one x unit is about one monospace character at 9 pt (0.075 in)
        fig = Figure(
            figsize=(1.6 + 0.085 * width, 0.36 * len(lines) + 0.7), layout="constrained"
        )
        ax = fig.subplots()
        ax.set_xlim(0, width)
        ax.set_ylim(len(lines), -0.6)
        ax.axis("off")
        for y, (label, segs, hl) in enumerate(lines):
            ax.text(
                -1.0, y, label, ha="right", va="center", fontsize=8, color="#57606a"
            )
            x = 0.0
            for w, pieces in enumerate(segs):
                for i, piece in enumerate(pieces):
                    new = hl is not None and hl == (w, i)
                    ax.text(
                        x,
                        y,
                        piece,
                        ha="left",
                        va="center",
                        family="monospace",
                        fontsize=9,
                        bbox={
                            "boxstyle": "round,pad=0.2",
                            "fc": "#fde4cf" if new else "#ddf4ff",
                            "ec": "#d95f02" if new else "#54aeff",
                        },
                    )
                    x += len(piece) + 1
                x += 2
        ax.set_title(self.title or f"BPE merges on {item['name']!r}", fontsize=10)
        return fig
