r"""Is one number ahead of another, or within the noise? The one way every chapter says it.

A difference :math:`a - b` is called *ahead* (or *behind*) only when it is larger than two
standard errors of the difference, :math:`|a - b| > 2\,\mathrm{SE}(a - b)`; otherwise the two
are *within the noise* of each other, and a chapter says so ("no measurable difference at this
size"). The standard error comes from what makes the numbers noisy:

- a proportion over :math:`n` test items (accuracy, exact match): the binomial
  :math:`\sqrt{p(1-p)/n}` (:func:`compare_proportions`);
- a statistic of a whole test set that is no mean of independent items (corpus BLEU, perplexity
  :math:`\exp(\sum \mathrm{NLL} / \sum \mathrm{tokens})`, error rates over utterances): a paired
  bootstrap over the test items both systems were scored on, ``scipy.stats.bootstrap``
  (:func:`compare_bootstrap`; Koehn, 2004, for BLEU);
- a number that changes with the training run more than with the test items: the spread over
  training seeds, :math:`s / \sqrt{k}` for :math:`k` seeds (:func:`compare_seeds`);
- accuracies of runs with several seeds each on the same test items: both noises
  (:func:`compare_runs`).

``record(chapter, name, comparison)`` glues the comparison's :attr:`Comparison.text`
("ahead by 3.1 points, ±1.6") and keeps its :attr:`Comparison.verdict` word, which ``make
seeds`` checks across random draws.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Comparison",
    "binomial_se",
    "bootstrap_se",
    "compare",
    "compare_bootstrap",
    "compare_proportions",
    "compare_runs",
    "compare_seeds",
    "runs_accuracy",
]

WITHIN = "within the noise"


@dataclass(frozen=True)
class Comparison:
    """Two numbers, the standard error of their difference, and how to say it.

    ``higher_is_better``: False for perplexity, error rates and losses. The difference is shown
    as ``(a - b) * scale`` ``unit`` with ``digits`` decimals; ``words`` are the verdicts for
    better and worse ("ahead", "behind"; "lower", "higher" for a perplexity).
    """

    a: float
    b: float
    se: float
    higher_is_better: bool = True
    scale: float = 1.0
    unit: str = ""
    digits: int = 1
    words: tuple[str, str] = ("ahead", "behind")

    def __post_init__(self) -> None:
        values = (self.a, self.b, self.se)
        if not all(math.isfinite(float(v)) for v in values) or self.se < 0:
            raise ValueError(
                f"a comparison needs finite values and a standard error >= 0; "
                f"got a={self.a!r}, b={self.b!r}, se={self.se!r}"
            )

    @property
    def difference(self) -> float:
        """a - b."""
        return float(self.a - self.b)

    @property
    def margin(self) -> float:
        """Two standard errors of the difference: what a real difference must exceed."""
        return 2.0 * float(self.se)

    @property
    def beyond_noise(self) -> bool:
        """|a - b| > 2 SE."""
        return abs(self.difference) > self.margin

    @property
    def better(self) -> bool:
        """a is better than b, beyond the noise."""
        return self.beyond_noise and (self.difference > 0) == self.higher_is_better

    @property
    def worse(self) -> bool:
        """a is worse than b, beyond the noise."""
        return self.beyond_noise and not self.better

    @property
    def verdict(self) -> str:
        """``words[0]`` (better), ``words[1]`` (worse) or "within the noise"."""
        if not self.beyond_noise:
            return WITHIN
        return self.words[0] if self.better else self.words[1]

    def _amount(self, value: float) -> str:
        number = f"{abs(value) * self.scale:,.{self.digits}f}"
        return f"{number} {self.unit}" if self.unit else number

    @property
    def text(self) -> str:
        """The verdict with its size and margin: "ahead by 3.1 points, ±1.6", or
        "within the noise: 0.4 points apart, ±1.6"."""
        margin = f"±{abs(self.margin) * self.scale:,.{self.digits}f}"
        if not self.beyond_noise:
            return f"{WITHIN}: {self._amount(self.difference)} apart, {margin}"
        return f"{self.verdict} by {self._amount(self.difference)}, {margin}"

    def __str__(self) -> str:
        return self.text


def compare(
    a: float,
    b: float,
    *,
    se: float | None = None,
    se_a: float | None = None,
    se_b: float | None = None,
    **style,
) -> Comparison:
    """Compare ``a`` with ``b`` given the standard error of their difference ``se``, or the
    standard errors of two independent numbers, :math:`\\sqrt{se_a^2 + se_b^2}`.

    ``style``: the :class:`Comparison` fields that say it (``higher_is_better``, ``scale``,
    ``unit``, ``digits``, ``words``).
    """
    if (se is None) == (se_a is None or se_b is None):
        raise ValueError("give either se (of a - b) or both se_a and se_b")
    if se is None:
        se = math.hypot(se_a, se_b)
    return Comparison(float(a), float(b), float(se), **style)


def binomial_se(p: float, n: int) -> float:
    """The standard error of a proportion ``p`` measured on ``n`` independent items."""
    if not 0.0 <= p <= 1.0 or not isinstance(n, (int, np.integer)) or n <= 0:
        raise ValueError(
            f"need 0 <= p <= 1 and a positive count n; got p={p!r}, n={n!r}"
        )
    return math.sqrt(p * (1.0 - p) / n)


def compare_proportions(
    a: float, b: float, n: int, *, n_b: int | None = None, **style
) -> Comparison:
    """Two accuracies (or exact-match rates) measured on ``n`` items (``n_b`` for ``b``'s, when
    it was measured on another number), binomial standard errors; shown in points (×100)."""
    style = {"scale": 100.0, "unit": "points"} | style
    return compare(
        a,
        b,
        se_a=binomial_se(a, n),
        se_b=binomial_se(b, n if n_b is None else n_b),
        **style,
    )


def bootstrap_se(
    statistic: Callable[..., float],
    *columns: Sequence[float] | np.ndarray,
    n_resamples: int = 1000,
    seed: int = 0,
) -> float:
    """The bootstrap standard error of ``statistic(*columns)``, resampling the test items.

    ``columns`` hold one value per test item each (the same number of items); a resample
    draws items with replacement and keeps an item's values together (``paired``).
    """
    from scipy.stats import bootstrap

    from course_lib.runtime import run_seed

    data = [np.asarray(c, dtype=float) for c in columns]
    sizes = {len(c) for c in data}
    if not data or len(sizes) != 1 or min(sizes) < 2:
        raise ValueError(
            f"bootstrap_se needs columns of one length, at least 2 items; got {sorted(sizes)}"
        )
    result = bootstrap(
        data,
        lambda *cols: statistic(*cols),
        paired=True,
        vectorized=False,
        n_resamples=n_resamples,
        method="percentile",
        rng=np.random.default_rng(run_seed(seed)),
    )
    return float(result.standard_error)


def compare_bootstrap(
    statistic: Callable[..., float],
    columns_a: Sequence,
    columns_b: Sequence,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    **style,
) -> Comparison:
    """``statistic`` of system A's columns against system B's, scored on the same test items:
    the standard error of the difference from a paired bootstrap over the items.

    ``columns_a``, ``columns_b``: sequences of per-item columns (for perplexity, each system's
    per-sentence NLL sums and the sentences' token counts; for BLEU, its sufficient statistics).
    """
    k = len(columns_a)
    a, b = statistic(*columns_a), statistic(*columns_b)
    se = bootstrap_se(
        lambda *cols: statistic(*cols[:k]) - statistic(*cols[k:]),
        *columns_a,
        *columns_b,
        n_resamples=n_resamples,
        seed=seed,
    )
    return Comparison(float(a), float(b), se, **style)


def compare_seeds(
    values_a: Sequence[float], values_b: Sequence[float], **style
) -> Comparison:
    """The means of two numbers trained with several seeds each, the standard error of each
    mean from its spread over the seeds (:math:`s/\\sqrt{k}`)."""
    a, b = np.asarray(values_a, dtype=float), np.asarray(values_b, dtype=float)
    if a.size < 2 or b.size < 2:
        raise ValueError(
            f"the spread over seeds needs at least 2 seeds each; got {a.size} and {b.size}"
        )
    return compare(
        a.mean(),
        b.mean(),
        se_a=_mean_se(a),
        se_b=_mean_se(b),
        **style,
    )


def compare_runs(
    correct_a: Sequence[Sequence[float]] | np.ndarray,
    correct_b: Sequence[Sequence[float]] | np.ndarray,
    **style,
) -> Comparison:
    r"""Two systems each trained with several seeds and scored on the same test items:
    ``correct_a`` (k_a, n) and ``correct_b`` (k_b, n), 1 where a run got item i right.

    Each accuracy is the mean over its seeds. The standard error of their difference adds
    both noises in quadrature: the test items' (the paired :math:`s_d/\sqrt{n}` of the
    per-item differences of the seed means) and the seeds' (each mean's :math:`s/\sqrt{k}`
    over its seeds' accuracies). Shown in points (×100) unless ``style`` says otherwise.
    """
    a, b = _runs(correct_a), _runs(correct_b)
    if a.shape[1] != b.shape[1]:
        raise ValueError(
            f"need (seeds, items) arrays on the same items; got {a.shape} and {b.shape}"
        )
    d = a.mean(0) - b.mean(0)  # (n,) per-item difference of the seed means
    se_items = d.std(ddof=1) / math.sqrt(d.size)
    se_seeds = math.hypot(_mean_se(a.mean(1)), _mean_se(b.mean(1)))  # seeds' accuracies
    style = {"scale": 100.0, "unit": "points"} | style
    return compare(a.mean(), b.mean(), se=math.hypot(se_items, se_seeds), **style)


def runs_accuracy(
    correct: Sequence[Sequence[float]] | np.ndarray,
) -> tuple[float, float]:
    r"""One system's accuracy over its seeds' runs, ``correct`` (k, n) as in
    :func:`compare_runs`, and its standard error from the same two noises: the test items'
    (:math:`s/\sqrt{n}` of the per-item seed means) and the seeds' (:math:`s/\sqrt{k}`),
    in quadrature. For error bars beside a comparison made by :func:`compare_runs`."""
    runs = _runs(correct)
    per_item = runs.mean(0)  # (n,)
    se_items = per_item.std(ddof=1) / math.sqrt(per_item.size)
    return float(runs.mean()), math.hypot(se_items, _mean_se(runs.mean(1)))


def _runs(correct: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    """``correct`` as a (seeds, items) float array, at least 2 of each."""
    runs = np.asarray(correct, dtype=float)
    if runs.ndim != 2:
        raise ValueError(f"need a (seeds, items) array; got shape {runs.shape}")
    if runs.shape[0] < 2 or runs.shape[1] < 2:
        raise ValueError(f"need at least 2 seeds and 2 items; got shape {runs.shape}")
    return runs


def _mean_se(values: np.ndarray) -> float:
    """The standard error of the mean of k seeds' values, s/sqrt(k)."""
    return float(values.std(ddof=1) / math.sqrt(values.size))
