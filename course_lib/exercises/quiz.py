"""Questions with checked answers: ``ask("ch06.vanishing")`` shows one, ``answer(name, "b")``
checks the reader's answer and explains it.

A ``Question`` is multiple choice (``choices``: letter -> text, ``answer`` the right letter) or
a number (``answer`` a float, accepted within ``rel_tol``). Every wrong choice, and at least one
plausible wrong number, carries the explanation shown to a reader who gives it (``wrong``), so a
wrong answer is told *what* it gets wrong, not only that it is wrong; any other wrong number
gets the question's ``explanation``. Chapter modules (``ch01`` ...) register their questions
beside their exercises and are imported when one is first asked for, as in ``core``.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field

from course_lib.exercises.core import FAILED, NOT_ATTEMPTED, PASSED, lookup, registered


@dataclass(frozen=True)
class Question:
    """One question: ``text`` in Markdown (math allowed), and its checked ``answer``."""

    name: str
    text: str
    answer: str | float
    explanation: str
    choices: Mapping[str, str] = field(default_factory=dict)
    wrong: Mapping[str | float, str] = field(default_factory=dict)
    rel_tol: float = 0.01

    @property
    def numeric(self) -> bool:
        return not self.choices

    def _repr_markdown_(self) -> str:
        lines = [f"**Question ({self.name}).** {self.text}"]
        lines += [f"- **({k})** {v}" for k, v in self.choices.items()]
        how = "a number" if self.numeric else "the letter of one choice"
        lines.append(f"\n*Answer with* `answer({self.name!r}, ...)`, *giving {how}.*")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self._repr_markdown_().replace("**", "").replace("*", "")


@dataclass(frozen=True)
class QuizResult:
    """What ``answer`` found: ``status`` is "passed", "failed" or "not attempted"."""

    name: str
    status: str
    message: str

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    def __repr__(self) -> str:
        mark = {PASSED: "✓", FAILED: "✗", NOT_ATTEMPTED: "…"}[self.status]
        return textwrap.fill(f"{mark} {self.name}: {self.message}", 76)

    def _repr_markdown_(self) -> str:
        return f"```text\n{self!r}\n```"


_QUESTIONS: dict[str, Question] = {}


def _check_question(q: Question) -> None:
    if not isinstance(q, Question):
        raise TypeError(f"register_questions() takes Question objects, got {q!r}")
    if q.name in _QUESTIONS:
        raise ValueError(f"question {q.name!r} is registered twice")
    if q.numeric:
        if isinstance(q.answer, str) or not q.wrong:
            raise ValueError(
                f"{q.name}: a numeric question needs a number as its answer and at "
                "least one plausible wrong number in `wrong`"
            )
        return
    if any(not (len(k) == 1 and k.islower()) for k in q.choices):
        raise ValueError(f"{q.name}: choices are keyed by one lower-case letter each")
    missing = set(q.choices) - {q.answer} - set(q.wrong)
    if q.answer not in q.choices or missing:
        raise ValueError(
            f"{q.name}: the answer must be one of the choices {sorted(q.choices)} and every "
            f"other choice needs its explanation in `wrong` (missing: {sorted(missing)})"
        )


def register_questions(*questions: Question) -> None:
    """Add questions to the registry; a name may be registered once."""
    for q in questions:
        _check_question(q)
        _QUESTIONS[q.name] = q


def questions(chapter: str | None = None) -> list[str]:
    """The question names, sorted; only ``chapter``'s ("ch06") when given."""
    return registered(_QUESTIONS, chapter)


def ask(name: str) -> Question:
    """The question ``name`` ("ch06.vanishing"); shown in a notebook with its choices."""
    return lookup(_QUESTIONS, name, "question", "ch06.exploding", "questions()")


def _close(q: Question, a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=q.rel_tol, abs_tol=1e-12)


def answer(name: str, given: str | float | None) -> QuizResult:
    """Check ``given`` against question ``name``'s answer; a wrong one is told what it misses.

    ``None`` or ``...`` is "not attempted". A letter outside the choices, or a text where a
    number is asked for, is a ValueError that says what the question takes.
    """
    q = ask(name)
    if given is None or given is Ellipsis:
        return QuizResult(name, NOT_ATTEMPTED, "Not answered yet.")
    if q.numeric:
        if isinstance(given, (str, bool)) or not isinstance(given, (int, float)):
            raise ValueError(f"{name} takes a number, got {given!r}")
        if _close(q, float(given), float(q.answer)):
            return QuizResult(name, PASSED, f"Right. {q.explanation}")
        why = next(
            (text for w, text in q.wrong.items() if _close(q, float(given), float(w))),
            q.explanation,
        )
        return QuizResult(name, FAILED, f"Not {given:g}. {why}")
    letter = str(given).strip().lower().strip("()")
    if letter not in q.choices:
        raise ValueError(f"{name} takes one of {sorted(q.choices)}, got {given!r}")
    if letter == q.answer:
        return QuizResult(name, PASSED, f"Right. {q.explanation}")
    return QuizResult(name, FAILED, f"Not ({letter}). {q.wrong[letter]}")
