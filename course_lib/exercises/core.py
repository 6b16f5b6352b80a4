"""Exercises that check themselves: ``check(name, fn)`` against the library's own reference.

Each exercise (``Exercise``) names a reference (a ``course_lib`` function, adapted to the
exercise's signature), a generator of cases (random inputs drawn from a seeded
``torch.Generator`` plus fixed edge cases) and the plausible mistakes it can recognise. ``check``
runs the learner's function on every case and reports the first input where it differs from
the reference, the expected and the received value, what the difference looks like, and a hint.
A stub that raises ``NotImplementedError`` or returns ``None`` or ``...`` is "not attempted":
it never fails a notebook run. Chapter modules (``ch01`` ... ) register their exercises; a
chapter's module is imported the first time one of its exercises is asked for, so a chapter
that checks its own exercises loads only its own references (and the book rebuilds a chapter
only when a module it uses changes, tools/book_cache.py).
"""

from __future__ import annotations

import copy
import difflib
import importlib
import pkgutil
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from course_lib.exercises.compare import difference, show
from course_lib.runtime import run_seed

PASSED, FAILED, NOT_ATTEMPTED = "passed", "failed", "not attempted"


@dataclass(frozen=True)
class Case:
    """One input: positional ``args``, keyword ``kwargs`` and a label ("random 2", "edge: ...")."""

    args: tuple
    kwargs: dict = field(default_factory=dict)
    label: str = "random"

    def describe(self) -> str:
        parts = [show(a) for a in self.args]
        parts += [f"{k}={show(v)}" for k, v in self.kwargs.items()]
        return f"{self.label}: ({', '.join(parts)})"


@dataclass(frozen=True)
class Mistake:
    """A plausible wrong answer, as a function with the exercise's signature, and its name."""

    name: str
    fn: Callable[..., Any]


@dataclass(frozen=True)
class Exercise:
    """A checkable exercise: ``cases(gen)`` gives the ``Case`` list, ``reference`` the answers."""

    name: str
    signature: str
    reference: Callable[..., Any]
    cases: Callable[[torch.Generator], Sequence[Case]]
    hint: str
    mistakes: tuple[Mistake, ...] = ()
    rtol: float = 1e-5
    atol: float = 1e-7


@dataclass(frozen=True)
class CheckResult:
    """What ``check`` found: ``status`` is "passed", "failed" or "not attempted"."""

    name: str
    status: str
    message: str
    n_cases: int
    case: Case | None = None

    @property
    def passed(self) -> bool:
        return self.status == PASSED

    def __repr__(self) -> str:
        """The report, wrapped at 76 columns so that it reads without scrolling."""
        mark = {PASSED: "✓", FAILED: "✗", NOT_ATTEMPTED: "…"}[self.status]
        return textwrap.fill(f"{mark} {self.name}: {self.status}. {self.message}", 76)

    def _repr_markdown_(self) -> str:
        return f"```text\n{self!r}\n```"


_REGISTRY: dict[str, Exercise] = {}


def register(*exercises: Exercise) -> None:
    """Add exercises to the registry; a name may be registered once."""
    for ex in exercises:
        if not isinstance(ex, Exercise):
            raise TypeError(
                f"register() takes Exercise objects, got {type(ex).__name__}"
            )
        if ex.name in _REGISTRY:
            raise ValueError(f"exercise {ex.name!r} is registered twice")
        _REGISTRY[ex.name] = ex


def chapters() -> list[str]:
    """The chapters that have exercises: the ``chNN`` modules of this package, sorted."""
    from course_lib import exercises

    found = (m.name for m in pkgutil.iter_modules(exercises.__path__))
    return sorted(n for n in found if re.fullmatch(r"ch\d\d", n))


def _load(chapter: str) -> None:
    """Import ``course_lib.exercises.<chapter>`` (it registers its exercises), once."""
    if chapter in chapters():
        importlib.import_module(f"course_lib.exercises.{chapter}")


def registered(registry: dict, chapter: str | None = None) -> list[str]:
    """The names in ``registry`` (exercises or questions), sorted; ``chapter``'s only
    ("ch07") when given. Loads the chapters' modules first."""
    for c in chapters() if chapter is None else [chapter]:
        _load(c)
    return sorted(n for n in registry if chapter is None or n.startswith(chapter + "."))


def lookup(registry: dict, name: str, what: str, example: str, lister: str) -> Any:
    """``registry[name]``, loading its chapter; a ValueError suggests close names."""
    if not isinstance(name, str):
        raise TypeError(f"an {what} name is a string like {example!r}, got {name!r}")
    _load(name.split(".")[0])
    if name not in registry:
        close = difflib.get_close_matches(name, registered(registry), n=3, cutoff=0.5)
        also = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise ValueError(
            f"no {what} called {name!r}{also} (course_lib.exercises.{lister})"
        )
    return registry[name]


def names(chapter: str | None = None) -> list[str]:
    """The exercise names, sorted; only ``chapter``'s ("ch07") when given."""
    return registered(_REGISTRY, chapter)


def get(name: str) -> Exercise:
    """The exercise ``name`` ("ch07.clipped_precision"); a ValueError suggests close names."""
    return lookup(_REGISTRY, name, "exercise", "ch07.brevity_penalty", "names()")


def _not_attempted(value: Any) -> bool:
    return value is None or value is Ellipsis


def _mistake_named(ex: Exercise, case: Case, received: Any) -> str:
    """The name of a registered mistake whose output equals ``received`` on ``case``, or ''."""
    for mistake in ex.mistakes:
        try:
            wrong = mistake.fn(*copy.deepcopy(case.args), **copy.deepcopy(case.kwargs))
        except Exception:  # a mistake that cannot run on this case explains nothing
            continue
        if difference(wrong, received, rtol=ex.rtol, atol=ex.atol) is None:
            return f" It matches a known mistake: {mistake.name}."
    return ""


def run_check(ex: Exercise, fn: Callable[..., Any], *, seed: int = 0) -> CheckResult:
    """Run ``fn`` on every case of ``ex`` and compare with the reference (see ``check``)."""
    gen = torch.Generator().manual_seed(run_seed(seed))
    cases = list(ex.cases(gen))
    for i, case in enumerate(cases):
        args, kwargs = copy.deepcopy(case.args), copy.deepcopy(case.kwargs)
        try:
            received = fn(*args, **kwargs)
        except NotImplementedError:
            return CheckResult(
                ex.name,
                NOT_ATTEMPTED,
                "Fill in the function and run the check again.",
                0,
            )
        except (
            Exception
        ) as err:  # the learner's bug, reported with the input that caused it
            return CheckResult(
                ex.name,
                FAILED,
                f"On input {case.describe()} it raised {type(err).__name__}: {err}. Hint: {ex.hint}",
                i + 1,
                case,
            )
        if i == 0 and _not_attempted(received):
            return CheckResult(
                ex.name, NOT_ATTEMPTED, "It returns nothing yet: fill in the body.", 0
            )
        changed = difference(case.args, args) or difference(case.kwargs, kwargs)
        if changed:
            return CheckResult(
                ex.name,
                FAILED,
                f"On input {case.describe()} it changed its input in place ({changed}) "
                "Work on a copy.",
                i + 1,
                case,
            )
        expected = ex.reference(*copy.deepcopy(case.args), **copy.deepcopy(case.kwargs))
        found = difference(expected, received, rtol=ex.rtol, atol=ex.atol)
        if found:
            values = f"Expected {show(expected)}; received {show(received)}. "
            if f"expected {show(expected)}, received {show(received)}" in found:
                values = ""  # a scalar: the sentence above already gave both
            return CheckResult(
                ex.name,
                FAILED,
                f"On input {case.describe()}: {found}{_mistake_named(ex, case, received)} "
                f"{values}Hint: {ex.hint}",
                i + 1,
                case,
            )
    return CheckResult(
        ex.name,
        PASSED,
        f"It agrees with the library on {_all_cases(len(cases))}.",
        len(cases),
    )


def _all_cases(n: int) -> str:
    """ "its one case", "both cases", "all 7 cases"."""
    return {1: "its one case", 2: "both cases"}.get(n, f"all {n} cases")


def check(name: str, fn: Callable[..., Any], *, seed: int = 0) -> CheckResult:
    """Check a learner's ``fn`` against the library's reference for exercise ``name``.

    Runs ``fn`` on the exercise's random cases (drawn with ``seed``; try others) and edge cases,
    stops at the first that differs and returns a ``CheckResult`` (shown in a notebook as a short
    report: the input, the expected and received values, the pattern of the difference, a hint).
    A stub that raises ``NotImplementedError`` or returns ``None``/``...`` is "not attempted".
    """
    ex = get(name)
    if not callable(fn):
        raise TypeError(
            f"check({name!r}, fn) needs a function {ex.signature}, got {type(fn).__name__}"
        )
    if not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {seed!r}")
    return run_check(ex, fn, seed=seed)
