"""A bug of the debugging section: the buggy and fixed functions and the check between them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Bug", "run_check"]


@dataclass(frozen=True)
class Bug:
    """A bug: name, symptom, the buggy and fixed functions, and the check that tells them apart."""

    name: str
    symptom: str
    buggy: Callable
    fixed: Callable
    check: Callable[[Callable], None]


def run_check(bug: Bug, which: str) -> str:
    """Run ``bug.check`` on ``bug.buggy`` or ``bug.fixed``; return "pass" or the failure."""
    if which not in ("buggy", "fixed"):
        raise ValueError(f"which must be 'buggy' or 'fixed'; got {which!r}")
    try:
        bug.check(bug.buggy if which == "buggy" else bug.fixed)
    except (AssertionError, NameError, RuntimeError, TypeError, ValueError) as err:
        return f"caught: {type(err).__name__}: {str(err).splitlines()[0][:90]}"
    return "pass"
