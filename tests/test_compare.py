"""course_lib.compare: the one way a chapter says 'ahead', 'within the noise' or 'behind'."""

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from course_lib import compare, results


def test_proportions_use_binomial_standard_errors():
    c = compare.compare_proportions(0.80, 0.75, 1000)
    se = math.sqrt(0.8 * 0.2 / 1000 + 0.75 * 0.25 / 1000)
    assert c.se == pytest.approx(se) and c.margin == pytest.approx(2 * se)
    assert c.verdict == "ahead" and c.better and not c.worse
    assert c.text == f"ahead by 5.0 points, ±{200 * se:.1f}"
    close = compare.compare_proportions(0.76, 0.75, 1000)
    assert close.verdict == "within the noise" and not close.better and not close.worse
    assert close.text.startswith("within the noise: 1.0 points apart, ±3.")
    assert compare.compare_proportions(0.5, 0.9, 100, n_b=50).verdict == "behind"


def test_lower_is_better_with_its_own_words():
    c = compare.compare(
        180.0, 224.0, se=10.0, higher_is_better=False, words=("lower", "higher")
    )
    assert c.verdict == "lower" and c.better and c.text == "lower by 44.0, ±20.0"
    assert compare.compare(250.0, 224.0, se=10.0, higher_is_better=False).worse


def test_independent_standard_errors_add_in_quadrature():
    c = compare.compare(1.0, 0.0, se_a=0.3, se_b=0.4)
    assert c.se == pytest.approx(0.5) and c.verdict == "within the noise"


def test_bootstrap_se_of_a_mean_is_its_standard_error():
    x = np.random.default_rng(0).normal(size=400)
    se = compare.bootstrap_se(np.mean, x, n_resamples=2000)
    assert se == pytest.approx(x.std(ddof=1) / math.sqrt(x.size), rel=0.1)
    direct = stats.bootstrap(
        (x,),
        np.mean,
        n_resamples=2000,
        method="percentile",
        rng=np.random.default_rng(0),
    )
    assert se == pytest.approx(direct.standard_error, rel=1e-12)


def perplexity(nll, tokens):
    return float(np.exp(np.sum(nll) / np.sum(tokens)))


def test_a_paired_bootstrap_sees_a_small_steady_gain_that_item_noise_hides():
    rng = np.random.default_rng(1)
    tokens = rng.integers(5, 40, size=300).astype(float)
    hard = rng.gamma(2.0, 1.0, size=300)  # some sentences are much harder than others
    nll_b = tokens * (4.0 + hard)
    nll_a = nll_b - 0.02 * tokens  # A is better on every sentence, by a little
    c = compare.compare_bootstrap(
        perplexity,
        (nll_a, tokens),
        (nll_b, tokens),
        higher_is_better=False,
        words=("lower", "higher"),
    )
    assert c.a == pytest.approx(perplexity(nll_a, tokens))
    assert c.verdict == "lower"
    # the same two perplexities with independent errors would be within the noise
    se_a = compare.bootstrap_se(perplexity, nll_a, tokens)
    se_b = compare.bootstrap_se(perplexity, nll_b, tokens)
    assert compare.compare(c.a, c.b, se_a=se_a, se_b=se_b).verdict == "within the noise"
    same = compare.compare_bootstrap(perplexity, (nll_a, tokens), (nll_a, tokens))
    assert same.se == 0 and same.verdict == "within the noise"


def test_seeds_use_the_spread_of_the_means():
    c = compare.compare_seeds([0.80, 0.82, 0.81], [0.70, 0.71, 0.69], scale=100)
    se = math.hypot(0.01 / math.sqrt(3), 0.01 / math.sqrt(3))
    assert c.a == pytest.approx(0.81) and c.se == pytest.approx(se)
    assert c.verdict == "ahead"
    with pytest.raises(ValueError, match="at least 2 seeds"):
        compare.compare_seeds([0.8], [0.7, 0.71])


@pytest.mark.parametrize(
    "call",
    [
        lambda: compare.compare(1.0, float("nan"), se=0.1),
        lambda: compare.compare(1.0, 0.0, se=-0.1),
        lambda: compare.compare(1.0, 0.0),
        lambda: compare.compare(1.0, 0.0, se=0.1, se_a=0.1, se_b=0.1),
        lambda: compare.binomial_se(1.5, 10),
        lambda: compare.binomial_se(0.5, 0),
        lambda: compare.bootstrap_se(np.mean, [1.0]),
        lambda: compare.bootstrap_se(np.mean, [1.0, 2.0], [1.0]),
    ],
)
def test_bad_input_is_named(call):
    with pytest.raises(ValueError):
        call()


@given(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3), st.floats(0, 1e3), st.booleans())
def test_a_verdict_reads_the_same_from_either_side(a, b, se, higher):
    ab = compare.compare(a, b, se=se, higher_is_better=higher)
    ba = compare.compare(b, a, se=se, higher_is_better=higher)
    assert ab.better == ba.worse and ab.worse == ba.better
    assert ab.beyond_noise == (abs(a - b) > 2 * se)
    assert "±" in ab.text and ab.text.startswith(ab.verdict)


def test_record_glues_the_text_and_keeps_the_verdict(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_RESULTS_DIR", str(tmp_path))
    glued = {}
    import myst_nb

    monkeypatch.setattr(myst_nb, "glue", lambda k, v, display: glued.update({k: v}))
    c = compare.compare_proportions(0.80, 0.75, 1000)
    results.record("ch04", "w2v", c)
    assert glued == {"ch04_w2v": c.text}
    data = json.loads((tmp_path / "ch04.json").read_text())
    assert data["w2v"] == c.text and data["_verdicts"] == {"w2v": "ahead"}
    assert results.load("ch04") == {"w2v": c.text}
    results.record("ch04", "w2v", 0.5, glue=False)  # no longer a comparison
    assert "_verdicts" not in json.loads((tmp_path / "ch04.json").read_text())


def test_compare_runs_adds_the_items_and_the_seeds_noise():
    rng = np.random.default_rng(0)
    a = (rng.random((3, 200)) < 0.8).astype(float)
    b = (rng.random((2, 200)) < 0.7).astype(float)
    c = compare.compare_runs(a, b)
    d = a.mean(0) - b.mean(0)
    se_items = d.std(ddof=1) / np.sqrt(200)
    se_seeds = np.hypot(
        a.mean(1).std(ddof=1) / np.sqrt(3), b.mean(1).std(ddof=1) / np.sqrt(2)
    )
    assert c.a == pytest.approx(a.mean()) and c.b == pytest.approx(b.mean())
    assert c.se == pytest.approx(np.hypot(se_items, se_seeds))
    assert c.scale == 100 and c.unit == "points"


def test_compare_runs_with_identical_seeds_is_the_paired_item_error():
    # every seed the same run: no seed noise, and the paired error of a mean of items
    a = np.tile([1, 1, 0, 1, 0, 1, 1, 1], (2, 1))
    b = np.tile([1, 0, 0, 1, 0, 0, 1, 1], (3, 1))
    d = a[0] - b[0]
    c = compare.compare_runs(a, b)
    assert c.se == pytest.approx(d.std(ddof=1) / np.sqrt(8))
    assert c.difference == pytest.approx(d.mean())


def test_compare_runs_refuses_what_it_cannot_measure():
    with pytest.raises(ValueError, match="same items"):
        compare.compare_runs(np.ones((2, 5)), np.ones((2, 6)))
    with pytest.raises(ValueError, match="at least 2 seeds"):
        compare.compare_runs(np.ones((1, 5)), np.ones((2, 5)))


def test_runs_accuracy_has_the_same_two_noises_as_compare_runs():
    rng = np.random.default_rng(1)
    a = (rng.random((4, 300)) < 0.75).astype(float)
    mean, se = compare.runs_accuracy(a)
    se_items = a.mean(0).std(ddof=1) / np.sqrt(300)
    se_seeds = a.mean(1).std(ddof=1) / np.sqrt(4)
    assert mean == pytest.approx(a.mean())
    assert se == pytest.approx(np.hypot(se_items, se_seeds))
    # against a system right everywhere (no noise of its own), compare_runs' error is the same
    c = compare.compare_runs(a, np.ones((2, 300)))
    assert c.se == pytest.approx(se)
    with pytest.raises(ValueError, match="at least 2 seeds"):
        compare.runs_accuracy(np.ones((1, 5)))
    with pytest.raises(ValueError, match="seeds, items"):
        compare.runs_accuracy(np.ones(5))
