"""Exercises that check themselves (every chapter's end): ``check("ch07.brevity_penalty", fn)``.

``check`` runs a learner's function against the library's own reference on random and edge
cases and reports the first difference; ``names()`` lists the exercises. See ``core``.
``ask("ch06.vanishing")`` shows a question and ``answer(name, "b")`` checks it (``quiz``). The
chapters' modules (``ch01`` ... ``ch10``) are imported when their exercises are first used.
"""

from course_lib.exercises.core import CheckResult, Exercise, check, get, names
from course_lib.exercises.quiz import Question, answer, ask, questions

__all__ = [
    "CheckResult",
    "Exercise",
    "Question",
    "answer",
    "ask",
    "check",
    "get",
    "names",
    "questions",
]
