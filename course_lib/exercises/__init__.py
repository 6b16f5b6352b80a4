"""Exercises that check themselves (every chapter's end): ``check("ch07.brevity_penalty", fn)``.

``check`` runs a learner's function against the library's own reference on random and edge
cases and reports the first difference; ``names()`` lists the exercises. See ``core``.
"""

from course_lib.exercises import (  # noqa: F401
    ch01,
    ch02,
    ch03,
    ch04,
    ch05,
    ch06,
    ch07,
    ch08,
    ch09,
    ch10,
)
from course_lib.exercises.core import CheckResult, Exercise, check, get, names

__all__ = ["CheckResult", "Exercise", "check", "get", "names"]
