"""course_lib.exercises: every check accepts the library's reference, rejects the plausible
mistakes with a message naming them, and treats unfilled stubs as "not attempted"."""

import json
import re
from pathlib import Path

import pytest
import torch

from course_lib import exercises
from course_lib.exercises import check, get, names
from course_lib.exercises.compare import difference

NAMES = names()
NOTEBOOKS = sorted(
    Path(__file__).resolve().parents[1].glob("notebooks/[0-9][0-9]_*.ipynb")
)


def test_every_chapter_has_exercises():
    chapters = {n.split(".")[0] for n in NAMES}
    assert chapters >= {f"ch{i:02d}" for i in range(1, 11)}
    assert all(len(names(c)) >= 3 for c in chapters)


@pytest.mark.parametrize("name", NAMES)
def test_reference_passes(name):
    result = check(name, get(name).reference)
    assert result.passed, result
    assert result.n_cases >= 2


@pytest.mark.parametrize("name", NAMES)
def test_each_mistake_is_rejected_and_named(name):
    ex = get(name)
    assert ex.mistakes, f"{name} names no plausible mistake"
    for mistake in ex.mistakes:
        result = check(name, mistake.fn)
        assert result.status == "failed", (mistake.name, result)
        assert mistake.name in result.message, result.message
        assert "xpected" in result.message and "Hint:" in result.message


@pytest.mark.parametrize("name", NAMES)
def test_unfilled_stubs_are_not_attempted(name):
    def returns_none(*args, **kwargs):
        pass

    def ellipsis(*args, **kwargs):
        return ...

    def raises(*args, **kwargs):
        raise NotImplementedError

    for stub in (returns_none, ellipsis, raises):
        assert check(name, stub).status == "not attempted"


def test_generic_differences_are_named():
    assert (
        "transpose"
        in check("ch01.ppmi", lambda c: get("ch01.ppmi").reference(c).T).message
    )
    flipped = check(
        "ch03.cross_entropy_grad",
        lambda z, y: -get("ch03.cross_entropy_grad").reference(z, y),
    )
    assert "sign flipped" in flipped.message
    halved = check(
        "ch01.centre_gradient",
        lambda *a: 0.5 * get("ch01.centre_gradient").reference(*a),
    )
    assert "times 0.5" in halved.message
    assert "NaN" in check("ch02.glove_weight", lambda x, *a: x * float("nan")).message
    short = check(
        "ch01.skipgram_pairs",
        lambda ids, w: get("ch01.skipgram_pairs").reference(ids, w)[1:],
    )
    assert "shape" in short.message


def test_errors_and_in_place_edits_are_reported_with_the_input():
    def crashes(counts):
        raise IndexError("out of range")

    result = check("ch01.ppmi", crashes)
    assert result.status == "failed" and "IndexError: out of range" in result.message
    assert "random 0" in result.message

    def edits(z, y):
        z -= 1
        return get("ch03.cross_entropy_grad").reference(z, y)

    assert "in place" in check("ch03.cross_entropy_grad", edits).message


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="did you mean 'ch07.brevity_penalty'"):
        check("ch07.brevity_penalti", lambda c, r: 1.0)
    with pytest.raises(TypeError, match="needs a function"):
        check("ch07.brevity_penalty", 3)
    with pytest.raises(TypeError):
        check(7, len)
    with pytest.raises(ValueError, match="twice"):
        exercises.core.register(get("ch01.ppmi"))


def test_seeds_change_the_random_cases_but_not_the_verdict():
    ex = get("ch01.ppmi")
    a, b = (
        ex.cases(torch.Generator().manual_seed(0)),
        ex.cases(torch.Generator().manual_seed(1)),
    )
    assert difference(a[0].args, b[0].args) is not None
    assert check("ch01.ppmi", ex.reference, seed=1).passed


def test_difference_on_containers():
    assert difference({"a": 1.0}, {"a": 1.0 + 1e-9}) is None
    assert "keys" in difference({"a": 1}, {"b": 1})
    assert "off-by-one" in difference([1, 2, 3], [1, 2])
    assert difference((0.5, 0.25), (0.5, 0.3)).startswith("item 1")
    assert difference(float("inf"), float("inf")) is None


def test_notebooks_check_only_registered_exercises_and_all_of_them():
    used = set()
    for path in NOTEBOOKS:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            used |= set(
                re.findall(r'check\(\s*"(ch\d\d\.\w+)"', "".join(cell["source"]))
            )
    assert used <= set(NAMES), used - set(NAMES)
    assert set(NAMES) <= used, f"exercises no chapter uses: {set(NAMES) - used}"
