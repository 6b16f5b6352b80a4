"""Exercises that check themselves (every chapter's end): ``check("ch07.brevity_penalty", fn)``.

``check`` runs a learner's function against the library's own reference on random and edge
cases and reports the first difference; ``names()`` lists the exercises. See ``core``. The
chapters' modules (``ch01`` ... ``ch10``) are imported when their exercises are first used.
"""

from course_lib.exercises.core import CheckResult, Exercise, check, get, names

__all__ = ["CheckResult", "Exercise", "check", "get", "names"]
