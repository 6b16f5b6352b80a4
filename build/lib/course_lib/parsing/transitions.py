r"""The arc-standard transition system: configurations, SHIFT, LEFT-ARC, RIGHT-ARC. Chapter 4.

CS224N lecture 4 ("Dependency parsing"); Nivre (2004, 2008); Chen & Manning (2014), section 2.
A configuration c = (σ, β, A) holds a stack σ (ROOT at the bottom), a buffer β of the words not
yet read and a set A of labelled arcs (head, dependent, label). From c₀ = ([ROOT], [w₁ … wₙ], ∅):

- SHIFT:          (σ, wᵢ|β, A) → (σ|wᵢ, β, A)                 needs a non-empty buffer;
- LEFT-ARC(r):    (σ|wᵢ|wⱼ, β, A) → (σ|wⱼ, β, A ∪ {r(wⱼ → wᵢ)})  needs wᵢ ≠ ROOT;
- RIGHT-ARC(r):   (σ|wᵢ|wⱼ, β, A) → (σ|wᵢ, β, A ∪ {r(wᵢ → wⱼ)}).

until c = ([ROOT], [], A): 2n transitions for n words. RIGHT-ARC from ROOT is allowed only once
the buffer is empty, so ROOT gets exactly one dependent (UD's single root). Words are numbered
1..n as in CoNLL-U; 0 is ROOT. With L labels there are 2L + 1 transitions; the
:class:`TransitionSystem` numbers them (0 = SHIFT, 1..L = LEFT-ARC, L+1..2L = RIGHT-ARC) and
computes which are legal, the same rule for one configuration and for a batch of them.

Shape legend: n words, L labels, K = 2L + 1 transitions, B configurations in a batch.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

__all__ = [
    "LECTURE_EXAMPLE",
    "ROOT",
    "ROOT_LABEL",
    "SHIFT",
    "Arc",
    "Configuration",
    "IllegalTransitionError",
    "Transition",
    "TransitionSystem",
    "replay",
    "trace_table",
]

ROOT = 0
ROOT_LABEL = "root"
KINDS = ("SHIFT", "LEFT-ARC", "RIGHT-ARC")
_PATTERN = re.compile(r"(SHIFT|LEFT-ARC|RIGHT-ARC)(?:\((.+)\))?\Z")

# The lecture's trace: "I ate fish" (CS224N lecture 4, arc-standard parser analysis).
LECTURE_EXAMPLE = {
    "words": ("I", "ate", "fish"),
    "upos": ("PRON", "VERB", "NOUN"),
    "heads": (2, 0, 2),
    "deprels": ("nsubj", "root", "obj"),
}


class IllegalTransitionError(ValueError):
    """A transition whose preconditions the configuration does not meet."""


class Transition(NamedTuple):
    """One transition: ``kind`` is SHIFT, LEFT-ARC or RIGHT-ARC; arcs carry a ``label``."""

    kind: str
    label: str | None = None

    def __str__(self) -> str:
        return self.kind if self.label is None else f"{self.kind}({self.label})"

    @classmethod
    def parse(cls, text: str) -> Transition:
        """``"SHIFT"``, ``"LEFT-ARC(nsubj)"`` or ``"RIGHT-ARC(obj)"`` as a Transition."""
        match = _PATTERN.match(text.strip())
        if not match or (match.group(1) == "SHIFT") != (match.group(2) is None):
            raise ValueError(
                f"not a transition: {text!r}; expected SHIFT, LEFT-ARC(label) or "
                "RIGHT-ARC(label)"
            )
        return cls(match.group(1), match.group(2))


SHIFT = Transition("SHIFT")


class Arc(NamedTuple):
    """A labelled dependency arc ``head → dependent`` (word ids, 0 = ROOT)."""

    head: int
    dependent: int
    label: str


@dataclass(frozen=True)
class Configuration:
    """One parser state (σ, β, A) of a sentence; :meth:`apply` returns the next one.

    words: ``("ROOT", w₁, …, wₙ)``; stack and buffer hold word ids (0 = ROOT), the stack's
    top last; arcs in the order they were made. Immutable, so a trace keeps every state.
    """

    words: tuple[str, ...]
    stack: tuple[int, ...]
    buffer: tuple[int, ...]
    arcs: tuple[Arc, ...] = ()

    @classmethod
    def initial(cls, words: Sequence[str]) -> Configuration:
        """c₀ = ([ROOT], [w₁ … wₙ], ∅) for the n words of a sentence (n ≥ 1)."""
        if isinstance(words, str):
            raise TypeError("words must be a sequence of tokens, not one string")
        if len(words) == 0:
            raise ValueError("a sentence needs at least one word")
        return cls(("ROOT", *map(str, words)), (ROOT,), tuple(range(1, len(words) + 1)))

    @property
    def n(self) -> int:
        """The number of words (ROOT not counted)."""
        return len(self.words) - 1

    def is_terminal(self) -> bool:
        """True at ([ROOT], [], A): the parse is complete."""
        return not self.buffer and self.stack == (ROOT,)

    def why_illegal(self, transition: Transition) -> str | None:
        """None when ``transition`` may be applied here, else the reason in words."""
        kind = transition.kind
        if kind not in KINDS:
            return f"unknown transition kind {kind!r}; expected one of {KINDS}"
        if (kind == "SHIFT") != (transition.label is None):
            return "SHIFT takes no label and the arcs need one"
        if kind == "SHIFT":
            return None if self.buffer else "SHIFT needs a word in the buffer"
        if len(self.stack) < 2:
            return f"{kind} needs two items on the stack"
        if kind == "LEFT-ARC" and self.stack[-2] == ROOT:
            return "LEFT-ARC would make ROOT a dependent"
        if kind == "RIGHT-ARC" and self.stack[-2] == ROOT and self.buffer:
            return "RIGHT-ARC from ROOT must wait for an empty buffer (one root)"
        return None

    def apply(self, transition: Transition) -> Configuration:
        """The configuration after ``transition``; IllegalTransitionError if not allowed."""
        reason = self.why_illegal(transition)
        if reason is not None:
            raise IllegalTransitionError(f"{transition} is illegal in {self}: {reason}")
        if transition.kind == "SHIFT":
            return Configuration(
                self.words, (*self.stack, self.buffer[0]), self.buffer[1:], self.arcs
            )
        *rest, second, top = self.stack
        if transition.kind == "LEFT-ARC":
            arc, stack = Arc(top, second, transition.label), (*rest, top)
        else:
            arc, stack = Arc(second, top, transition.label), (*rest, second)
        return Configuration(self.words, stack, self.buffer, (*self.arcs, arc))

    def heads(self) -> list[int]:
        """The head of each word 1..n so far (-1 where none yet)."""
        heads = [-1] * self.n
        for arc in self.arcs:
            heads[arc.dependent - 1] = arc.head
        return heads

    def deprels(self) -> list[str]:
        """The label of each word 1..n so far (``""`` where none yet)."""
        labels = [""] * self.n
        for arc in self.arcs:
            labels[arc.dependent - 1] = arc.label
        return labels

    def children(self, head: int) -> tuple[list[int], list[int]]:
        """The dependents of ``head`` so far: left ones ascending, right ones descending.

        So ``left[0]`` is the leftmost child lc₁ and ``right[0]`` the rightmost rc₁.
        """
        deps = [a.dependent for a in self.arcs if a.head == head]
        left = sorted(d for d in deps if d < head)
        right = sorted((d for d in deps if d > head), reverse=True)
        return left, right

    def __str__(self) -> str:
        stack = ", ".join(self.words[i] for i in self.stack)
        buffer = ", ".join(self.words[i] for i in self.buffer)
        return f"stack=[{stack}] buffer=[{buffer}]"


class TransitionSystem:
    """The 2L + 1 transitions over L arc labels, numbered 0 = SHIFT, then LEFT-ARCs, RIGHT-ARCs.

    labels: the L arc labels in model order. When ``"root"`` is among them, it is kept for the
    arc from ROOT and that arc must carry it (UD's convention), so LAS cannot lose it.
    """

    def __init__(self, labels: Sequence[str]) -> None:
        labels = tuple(str(label) for label in labels)
        if not labels or len(set(labels)) != len(labels):
            raise ValueError(
                f"labels must be a non-empty list without repeats; got {labels}"
            )
        self.labels = labels
        self.transitions = (
            SHIFT,
            *(Transition("LEFT-ARC", r) for r in labels),
            *(Transition("RIGHT-ARC", r) for r in labels),
        )
        self._index = {t: i for i, t in enumerate(self.transitions)}
        L = len(labels)
        self.kind = np.array([0] + [1] * L + [2] * L)  # (K,) 0 SHIFT, 1 LEFT, 2 RIGHT
        self.label_index = np.array([-1, *range(L), *range(L)])  # (K,) index in labels
        root = [r == ROOT_LABEL for r in labels]
        self.is_root_label = np.array([False, *root, *root])  # (K,)
        self.has_root_label = ROOT_LABEL in labels

    def __len__(self) -> int:
        return len(self.transitions)

    def __repr__(self) -> str:
        return f"TransitionSystem({len(self.labels)} labels, {len(self)} transitions)"

    def id(self, transition: Transition | str) -> int:
        """The number of a transition (or of its text, ``"LEFT-ARC(nsubj)"``)."""
        if isinstance(transition, str):
            transition = Transition.parse(transition)
        try:
            return self._index[transition]
        except KeyError:
            raise ValueError(
                f"{transition} is not a transition of this system (labels: "
                f"{', '.join(self.labels[:8])}{' …' if len(self.labels) > 8 else ''})"
            ) from None

    def legal_mask(self, depth: np.ndarray, buffer_empty: np.ndarray) -> np.ndarray:
        """Which transitions are legal, for B configurations at once. (B,), (B,) -> (B, K).

        depth: stack sizes (ROOT included); buffer_empty: bools. SHIFT needs a buffer word;
        LEFT-ARC needs depth ≥ 3 (ROOT never a dependent); RIGHT-ARC needs depth ≥ 3, or
        depth 2 and an empty buffer (the arc from ROOT). With a ``root`` label, the arc from
        ROOT carries ``root`` and no other arc does.
        """
        depth = np.asarray(depth)[:, None]  # (B, 1)
        empty = np.asarray(buffer_empty, dtype=bool)[:, None]  # (B, 1)
        shift = (self.kind == 0) & ~empty  # (B, K)
        arcs = (self.kind > 0) & (depth >= 3)  # (B, K)
        from_root = (self.kind == 2) & (depth == 2) & empty  # (B, K)
        if self.has_root_label:
            arcs &= ~self.is_root_label
            from_root &= self.is_root_label
        return shift | arcs | from_root  # (B, K)

    def legal(self, config: Configuration) -> np.ndarray:
        """The legal-transition mask of one configuration. (K,) bool."""
        mask = self.legal_mask(
            np.array([len(config.stack)]), np.array([not config.buffer])
        )
        return mask[0]  # (K,)


def replay(
    words: Sequence[str], transitions: Sequence[Transition | str]
) -> list[tuple[Configuration, Transition | None]]:
    """Apply ``transitions`` from c₀ of ``words``; every state and the transition taken from it.

    Returns [(c₀, t₁), (c₁, t₂), …, (c_m, None)]: the lecture's trace, one row per state.
    """
    config = Configuration.initial(words)
    steps: list[tuple[Configuration, Transition | None]] = []
    for t in transitions:
        t = Transition.parse(t) if isinstance(t, str) else t
        steps.append((config, t))
        config = config.apply(t)
    steps.append((config, None))
    return steps


def trace_table(steps: Sequence[tuple[Configuration, Transition | None]]) -> list[dict]:
    """The trace as rows of text: step, stack, buffer, transition, and the arc it adds."""
    rows = []
    for i, (config, t) in enumerate(steps):
        arc = ""
        if i + 1 < len(steps) and t is not None and t.kind != "SHIFT":
            head, dep, label = steps[i + 1][0].arcs[-1]
            arc = f"{label}({config.words[head]} → {config.words[dep]})"
        rows.append(
            {
                "step": i,
                "stack": "[" + " ".join(config.words[j] for j in config.stack) + "]",
                "buffer": "[" + " ".join(config.words[j] for j in config.buffer) + "]",
                "transition": "" if t is None else str(t),
                "new arc": arc,
            }
        )
    return rows
