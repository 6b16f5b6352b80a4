"""The debugging section's bugs: each check catches the buggy version and passes the fix."""

from __future__ import annotations

import pytest

from course_lib.transformer.bugs import BUGS, SETUP_BUGS, run_check


@pytest.mark.parametrize(
    "bug", BUGS + SETUP_BUGS, ids=[b.name for b in BUGS + SETUP_BUGS]
)
def test_check_catches_bug_and_passes_fix(bug):
    assert run_check(bug, "buggy").startswith("caught:")
    assert run_check(bug, "fixed") == "pass"
    bug.check(bug.fixed)  # no exception at all on the fixed version


def test_six_bugs_with_symptoms():
    assert len(BUGS) == 6
    assert all(b.symptom and b.name for b in BUGS)


@pytest.mark.parametrize(
    "name, error",
    [
        ("layer and head counts never defined", "NameError: name 'num_layers'"),
        ("positional class called by another name", "NameError: name 'PositionEnc"),
        ("mask argument misspelt in one branch", "TypeError:"),
        ("model built without its arguments", "TypeError:"),
        ("hard-coded .cuda()", ""),  # AssertionError without CUDA, RuntimeError with it
    ],
)
def test_setup_bugs_raise_the_error_their_symptom_names(name, error):
    (bug,) = [b for b in SETUP_BUGS if b.name == name]
    assert run_check(bug, "buggy").startswith("caught: " + error)
    assert error.split(":")[0] in bug.symptom or not error
