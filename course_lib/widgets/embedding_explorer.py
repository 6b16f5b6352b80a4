"""EmbeddingExplorer: nearest neighbours, analogies and a 2-D map of word vectors.

Chapter 2 (CS224N lecture 2's intrinsic evaluation; *Sequence Models* week 2). Python
precomputes, for a list of query words, the top-k neighbours by cosine; for a list of analogy
triples a : b :: c : ?, the top answers of 3CosAdd; and a PCA map of a few hundred frequent
words. In the book (``COURSE_WIDGET_MODE=html``) readers pick a word or an analogy from a list
and hover over the map; with a kernel, a text box looks up any word (or three words, an
analogy) through a Python observer that appends the result to the same traits.
Front end: ``js/embedding_explorer.js``.

Shape legend: V vocabulary, D width, N map points, Q query words, k neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import traitlets as t
from matplotlib.figure import Figure

from course_lib.embeddings.evaluation import (
    OutOfVocabularyError,
    _token_of,
    analogy,
    nearest_neighbours,
)
from course_lib.widgets.base import CourseWidget, in_range, js_path, to_jsonable

__all__ = ["EmbeddingExplorer"]

COLOURS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"]


def _is_word(token: str) -> bool:
    return token.isalpha() and len(token) > 1


class EmbeddingExplorer(CourseWidget):
    """Neighbours and analogies of word vectors, with a hoverable 2-D PCA map.

    E: (V, D) word vectors; vocab: ``course_lib.data.Vocab`` or a dict word -> row, ordered by
    frequency (the map's default words are the first alphabetic ones). words: the query words
    (default: the 8 most frequent alphabetic words); analogies: (a, b, c) or (a, b, c, d)
    triples, d the expected answer. Missing words raise ``OutOfVocabularyError``. k: neighbours
    and answers kept; n_points: words on the map (queries and their neighbours first).
    """

    _esm = js_path("embedding_explorer")

    title = t.Unicode("").tag(sync=True)
    words = t.List(t.Unicode(), help="Q query words").tag(sync=True)
    neighbours = t.List(help="Q lists of [word, cosine], most similar first").tag(
        sync=True
    )
    analogies = t.List(help="[{a, b, c, expected, answers: [[word, cosine]]}]").tag(
        sync=True
    )
    points = t.List(help="(N, 2) PCA coordinates").tag(sync=True)
    labels = t.List(t.Unicode(), help="N words on the map").tag(sync=True)
    word_index = t.Int(0, help="the query word on show").tag(sync=True)
    analogy_index = t.Int(0, help="the analogy on show").tag(sync=True)
    query = t.Unicode("", help="kernel only: a word or 'a b c' to look up").tag(
        sync=True
    )
    message = t.Unicode("", help="the answer to a failed query").tag(sync=True)

    def __init__(
        self,
        E: torch.Tensor,
        vocab: Any,
        words: Sequence[str] | None = None,
        analogies: Sequence[Sequence[str]] = (),
        *,
        k: int = 8,
        n_points: int = 300,
        title: str = "",
        decimals: int = 3,
    ) -> None:
        if not isinstance(E, torch.Tensor) or E.dim() != 2:
            raise ValueError(
                f"E must be a (V, D) tensor, got {getattr(E, 'shape', type(E))}"
            )
        if k < 1 or n_points < 2:
            raise ValueError(
                f"need k >= 1 and n_points >= 2, got k={k}, n_points={n_points}"
            )
        self._E, self._vocab, self._k, self._decimals = (
            E.detach().float().cpu(),
            vocab,
            k,
            decimals,
        )
        token = _token_of(vocab)
        frequent = [token(i) for i in range(E.size(0)) if _is_word(token(i))]
        words = list(words) if words is not None else frequent[:8]
        missing = [w for w in words if w not in vocab]
        missing += [
            w for q in analogies for w in q if w not in vocab and w not in missing
        ]
        if missing:
            raise OutOfVocabularyError(missing)
        items = [self._analogy(q) for q in analogies]
        lists = [self._neighbours(w) for w in words]
        shown = [*words, *(w for n in lists for w, _ in n)]
        shown += [w for item in items for w in (item["a"], item["b"], item["c"])]
        shown += [w for item in items for w, _ in item["answers"][:1]]
        self._fit_map(
            list(dict.fromkeys(shown + frequent))[: max(n_points, len(set(shown)))]
        )
        super().__init__(
            title=title,
            words=words,
            neighbours=lists,
            analogies=items,
            points=to_jsonable(self._project(self._map_words), 2),
            labels=self._map_words,
        )

    # -- precomputation ------------------------------------------------------------------
    def _neighbours(self, word: str) -> list[list]:
        found = nearest_neighbours(self._E, self._vocab, word, self._k)
        return [[w, round(c, self._decimals)] for w, c in found]

    def _analogy(self, quad: Sequence[str]) -> dict[str, Any]:
        if len(quad) not in (3, 4):
            raise ValueError(
                f"an analogy is (a, b, c) or (a, b, c, d), got {tuple(quad)!r}"
            )
        a, b, c = quad[:3]
        answers = analogy(self._E, self._vocab, a, b, c, k=self._k)
        return dict(
            a=a,
            b=b,
            c=c,
            expected=quad[3] if len(quad) == 4 else "",
            answers=[[w, round(s, self._decimals)] for w, s in answers],
        )

    def _fit_map(self, words: list[str]) -> None:
        """PCA of the map words (as ``viz.project_2d``), kept to place later words too."""
        X = self._E[[int(self._vocab[w]) for w in words]].double()  # (N, D)
        self._mean = X.mean(dim=0)  # (D,)
        _, _, Vh = torch.linalg.svd(X - self._mean, full_matrices=False)  # (K, D)
        axes = Vh[:2].T  # (D, 2)
        coords = (X - self._mean) @ axes  # (N, 2)
        pivot = coords.abs().argmax(dim=0)  # (2,)  each column's largest entry ...
        self._axes = axes * coords[pivot, [0, 1]].sign()  # (D, 2)  ... made positive
        self._map_words = words

    def _project(self, words: Sequence[str]) -> np.ndarray:
        X = self._E[[int(self._vocab[w]) for w in words]].double()  # (n, D)
        return ((X - self._mean) @ self._axes).numpy() + 0.0  # (n, 2)

    def _add_to_map(self, words: Sequence[str]) -> None:
        new = [w for w in dict.fromkeys(words) if w not in self.labels]
        if new:
            self._map_words = self._map_words + new
            pts = to_jsonable(self._project(new), 2)
            self.points, self.labels = self.points + pts, self.labels + new

    # -- the kernel-only text box ----------------------------------------------------------
    def _lookup(self, word: str) -> str | None:
        for w in (word, word.lower()):
            if w in self._vocab:
                return w
        return None

    @t.observe("query")
    def _on_query(self, change: dict) -> None:
        parts = change["new"].replace(":", " ").replace("?", " ").split()
        if not parts:
            return
        if len(parts) not in (1, 3):
            self.message = (
                "Type one word, or three words a b c for 'a is to b as c is to ?'."
            )
            return
        found = [self._lookup(p) for p in parts]
        missing = [p for p, f in zip(parts, found, strict=True) if f is None]
        if missing:
            self.message = "Not in the vocabulary: " + ", ".join(
                repr(w) for w in missing
            )
            return
        self.message = ""
        if len(found) == 1:
            word = found[0]
            if word not in self.words:
                lists = self._neighbours(word)
                self._add_to_map([word, *(w for w, _ in lists)])
                self.neighbours, self.words = (
                    self.neighbours + [lists],
                    self.words + [word],
                )
            self.word_index = self.words.index(word)
        else:
            item = self._analogy(found)
            self._add_to_map([*found, item["answers"][0][0]])
            self.analogies = self.analogies + [item]
            self.analogy_index = len(self.analogies) - 1

    @t.validate("word_index", "analogy_index")
    def _check_index(self, proposal: dict) -> int:
        name = proposal["trait"].name
        size = len(self.words if name == "word_index" else self.analogies)
        return in_range(name, proposal["value"], size)

    def _plain_text(self) -> str:
        shown = ", ".join(self.words[:6]) + (" …" if len(self.words) > 6 else "")
        return (
            f"EmbeddingExplorer({self.title!r}: neighbours of {shown}; "
            f"{len(self.analogies)} analogies; {len(self.labels)} words on the map)"
        )

    # -- static figure ---------------------------------------------------------------------
    def static_figure(self, max_words: int = 4) -> Figure:
        """The map with up to ``max_words`` query words and their neighbours highlighted."""
        pts = np.asarray(self.points, dtype=np.float64).reshape(-1, 2)
        where = {w: i for i, w in enumerate(self.labels)}
        fig = Figure(figsize=(7.5, 5.6), layout="constrained")
        ax = fig.subplots()
        ax.scatter(pts[:, 0], pts[:, 1], s=8, color="#c0c6cc", zorder=1)
        for n, (word, near) in enumerate(
            list(zip(self.words, self.neighbours))[:max_words]
        ):
            colour = COLOURS[n % len(COLOURS)]
            group = [word] + [w for w, _ in near]
            idx = [where[w] for w in group if w in where]
            ax.scatter(
                pts[idx, 0], pts[idx, 1], s=22, color=colour, zorder=3, label=word
            )
            for j, i in enumerate(idx):
                ax.annotate(
                    self.labels[i],
                    pts[i],
                    xytext=(3, 3),
                    textcoords="offset points",
                    fontsize=10 if j == 0 else 8,
                    fontweight="bold" if j == 0 else "normal",
                    color=colour,
                )
        ax.legend(title="query word and its neighbours", fontsize=8, loc="best")
        ax.set_xlabel("PCA 1")
        ax.set_ylabel("PCA 2")
        ax.set_title(
            self.title
            or f"Nearest neighbours (cosine) on a PCA map of {len(pts)} words"
        )
        return fig
