"""The debugging section's bugs: each check catches the buggy version and passes the fix."""

from __future__ import annotations

import pytest

from course_lib.transformer.bugs import BUGS, run_check


@pytest.mark.parametrize("bug", BUGS, ids=[b.name for b in BUGS])
def test_check_catches_bug_and_passes_fix(bug):
    assert run_check(bug, "buggy").startswith("caught:")
    assert run_check(bug, "fixed") == "pass"
    bug.check(bug.fixed)  # no exception at all on the fixed version


def test_six_bugs_with_symptoms():
    assert len(BUGS) == 6
    assert all(b.symptom and b.name for b in BUGS)
