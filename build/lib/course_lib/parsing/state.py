r"""B arc-standard configurations advanced together, as NumPy arrays. Chapter 4.

The same system as :mod:`course_lib.parsing.transitions` (CS224N lecture 4; Chen & Manning 2014,
section 3.3 on minibatch parsing), stored so that one transition per sentence is a handful of
array operations for the whole batch: the oracle labels every training configuration this way,
and the batch parser advances many sentences with one forward pass per step.

Layout, for B sentences of at most N words: token positions 0..N (0 = ROOT) and one *sentinel*
position S = N + 1 that stands for "nothing there" (an empty stack slot, a missing child); its
word, tag and label features are NULL. In arc-standard the buffer is always the words
next..n, so it is one integer per sentence. Left children are attached nearest first and right
children left to right, so the leftmost child lc₁ and the second leftmost lc₂ (rightmost rc₁,
rc₂) are the last two left (right) arcs made: two arrays each, updated in O(1).

Shape legend: B sentences, P = N + 2 positions (ROOT, N words, sentinel), K transitions.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from course_lib.parsing.transitions import (
    ROOT,
    Arc,
    Configuration,
    IllegalTransitionError,
    TransitionSystem,
)

__all__ = ["BatchConfigurations"]


class BatchConfigurations:
    """The configurations of B sentences; :meth:`apply` makes one transition in each.

    lengths: the number of words n_b of each sentence (≥ 1). Arrays (B, P) indexed by token
    position: ``head`` (−1 = none yet), ``label`` (index into the system's labels, −1 = none),
    ``lc1, lc2, rc1, rc2`` (children, S = none), ``n_children``; ``stack`` (B, P) with
    ``depth`` (B,) items (ROOT at the bottom), ``next`` (B,) the buffer's first word.
    """

    def __init__(self, lengths: Sequence[int]) -> None:
        n = np.asarray(lengths, dtype=np.int64)  # (B,)
        if n.ndim != 1 or n.size == 0 or (n < 1).any():
            raise ValueError(
                f"lengths must be a non-empty list of word counts >= 1; got {list(n)}"
            )
        B, N = len(n), int(n.max())
        self.n = n
        self.sentinel = S = N + 1
        shape = (B, N + 2)
        self.stack = np.full(shape, S, dtype=np.int64)  # (B, P)
        self.stack[:, 0] = ROOT
        self.depth = np.ones(B, dtype=np.int64)  # (B,)
        self.next = np.ones(B, dtype=np.int64)  # (B,)
        self.head = np.full(shape, -1, dtype=np.int64)  # (B, P)
        self.label = np.full(shape, -1, dtype=np.int64)  # (B, P)
        self.lc1, self.lc2, self.rc1, self.rc2 = (
            np.full(shape, S, dtype=np.int64) for _ in range(4)
        )  # (B, P) each
        self.n_children = np.zeros(shape, dtype=np.int64)  # (B, P)

    def __len__(self) -> int:
        return len(self.n)

    def _rows(self, rows: np.ndarray | None) -> np.ndarray:
        return np.arange(len(self)) if rows is None else np.asarray(rows)

    def stack_top(self, k: int, rows: np.ndarray | None = None) -> np.ndarray:
        """The k-th item from the top of the stack (k = 1 is the top), S when absent. (R,)"""
        r = self._rows(rows)
        depth = self.depth[r]  # (R,)
        pos = self.stack[r, np.maximum(depth - k, 0)]  # (R,)
        return np.where(depth >= k, pos, self.sentinel)  # (R,)

    def buffer_front(self, k: int, rows: np.ndarray | None = None) -> np.ndarray:
        """The k-th word of the buffer (k = 1 is the first), S when absent. (R,)"""
        r = self._rows(rows)
        pos = self.next[r] + (k - 1)  # (R,)
        return np.where(pos <= self.n[r], pos, self.sentinel)  # (R,)

    def done(self) -> np.ndarray:
        """Which configurations are terminal: ([ROOT], [], A). (B,) bool"""
        return (self.depth == 1) & (self.next > self.n)

    def legal_mask(
        self, system: TransitionSystem, rows: np.ndarray | None = None
    ) -> np.ndarray:
        """Legal transitions of each configuration (``TransitionSystem.legal_mask``). (R, K)"""
        r = self._rows(rows)
        return system.legal_mask(self.depth[r], self.next[r] > self.n[r])

    def apply(
        self,
        ids: np.ndarray,
        system: TransitionSystem,
        rows: np.ndarray | None = None,
        check: bool = True,
    ) -> None:
        """Make transition ``ids[i]`` in configuration ``rows[i]`` (all rows by default), in place.

        With ``check``, an illegal transition raises IllegalTransitionError naming the
        sentence and its configuration before anything changes.
        """
        r = self._rows(rows)
        ids = np.asarray(ids, dtype=np.int64)  # (R,)
        if ids.shape != r.shape:
            raise ValueError(f"need one transition per row: {ids.shape} vs {r.shape}")
        if check:
            if ((ids < 0) | (ids >= len(system))).any():
                raise ValueError(f"transition ids must be in 0..{len(system) - 1}")
            ok = self.legal_mask(system, r)[np.arange(len(r)), ids]  # (R,)
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                t, b = system.transitions[ids[i]], int(r[i])
                config = self.configuration(b, system=system)
                raise IllegalTransitionError(
                    f"{t} is illegal in sentence {b} of the batch, {config}: "
                    f"{config.why_illegal(t) or 'the label rule of the arc from ROOT'}"
                )
        kind, lab = system.kind[ids], system.label_index[ids]  # (R,), (R,)
        d = self.depth[r]  # (R,)
        # SHIFT: push the buffer's first word
        m = kind == 0
        rs = r[m]
        self.stack[rs, d[m]] = self.next[rs]
        self.depth[rs] += 1
        self.next[rs] += 1
        # LEFT-ARC(l): s1 → s2, s2 leaves the stack
        m = kind == 1
        rs, h, dep = r[m], self.stack[r[m], d[m] - 1], self.stack[r[m], d[m] - 2]
        self._attach(rs, h, dep, lab[m], self.lc1, self.lc2)
        self.stack[rs, d[m] - 2] = h
        self.stack[rs, d[m] - 1] = self.sentinel
        self.depth[rs] -= 1
        # RIGHT-ARC(l): s2 → s1, s1 leaves the stack
        m = kind == 2
        rs, h, dep = r[m], self.stack[r[m], d[m] - 2], self.stack[r[m], d[m] - 1]
        self._attach(rs, h, dep, lab[m], self.rc1, self.rc2)
        self.stack[rs, d[m] - 1] = self.sentinel
        self.depth[rs] -= 1

    def _attach(self, rs, h, dep, lab, first, second) -> None:
        self.head[rs, dep] = h
        self.label[rs, dep] = lab
        second[rs, h] = first[rs, h]  # the previous nearest-to-the-edge child moves in
        first[rs, h] = dep
        self.n_children[rs, h] += 1

    def heads(self, b: int) -> list[int]:
        """The heads of sentence b's words 1..n (−1 where none yet)."""
        return self.head[b, 1 : self.n[b] + 1].tolist()

    def labels(self, b: int, system: TransitionSystem) -> list[str]:
        """The labels of sentence b's words 1..n (``""`` where none yet)."""
        idx = self.label[b, 1 : self.n[b] + 1]
        return [system.labels[i] if i >= 0 else "" for i in idx]

    def configuration(
        self,
        b: int,
        words: Sequence[str] | None = None,
        system: TransitionSystem | None = None,
    ) -> Configuration:
        """Sentence b as a :class:`Configuration` (arcs in word order; labels need ``system``)."""
        n = int(self.n[b])
        if words is None:
            words = [f"w{i}" for i in range(1, n + 1)]
        stack = tuple(int(i) for i in self.stack[b, : self.depth[b]])
        buffer = tuple(range(int(self.next[b]), n + 1))
        arcs = tuple(
            Arc(
                int(self.head[b, d]), d, self._label_text(int(self.label[b, d]), system)
            )
            for d in range(1, n + 1)
            if self.head[b, d] >= 0
        )
        return Configuration(("ROOT", *map(str, words)), stack, buffer, arcs)

    @staticmethod
    def _label_text(i: int, system: TransitionSystem | None) -> str:
        return system.labels[i] if system is not None else str(i)
