"""Chapter 2 exercises (training word vectors): noise, subsampling, GloVe, debiasing, SGNS.

References: ``course_lib.embeddings`` (``noise_distribution``, ``keep_probabilities``,
``glove_weight``, ``neutralize``, ``sgns_loss_and_gradient``).
"""

from __future__ import annotations

import torch

from course_lib.embeddings.debias import neutralize
from course_lib.embeddings.glove import glove_weight
from course_lib.embeddings.negative_sampling import (
    noise_distribution,
    sgns_loss_and_gradient,
)
from course_lib.embeddings.subsampling import keep_probabilities
from course_lib.exercises.core import Case, Exercise, Mistake, register


def _word_counts(gen, V=6):
    return torch.randint(1, 2000, (V,), generator=gen).double()  # (V,)


def _noise_cases(gen):
    cases = [
        Case((_word_counts(gen),), {"power": 0.75}, f"random {i}") for i in range(3)
    ]
    cases.append(Case((_word_counts(gen),), {"power": 1.0}, "edge: power 1 (unigram)"))
    cases.append(
        Case((torch.tensor([5.0, 0.0, 1.0]),), {"power": 0.75}, "edge: a count of 0")
    )
    return cases


def _keep_cases(gen):
    cases = [
        Case((_word_counts(gen, 8),), {"sample": 1e-2}, f"random {i}") for i in range(3)
    ]
    skewed = torch.tensor([10_000.0, 50.0, 3.0, 1.0])
    cases.append(Case((skewed,), {"sample": 1e-3}, "edge: one very frequent word"))
    return cases


def _keep_unclipped(counts, sample):
    f = counts / counts.sum()  # (V,)
    return ((f / sample).sqrt() + 1) * sample / f  # (V,)


def _glove_cases(gen):
    cases = [
        Case(
            (torch.rand(8, generator=gen, dtype=torch.float64) * 300,),
            label=f"random {i}",
        )
        for i in range(3)
    ]
    cases.append(
        Case(
            (torch.tensor([0.0, 1.0, 100.0, 250.0], dtype=torch.float64),),
            label="edge: 0, x_max and above",
        )
    )
    return cases


def _glove_unclipped(x, x_max=100.0, alpha=0.75):
    return (x / x_max) ** alpha


def _neutralize_cases(gen):
    cases = []
    for i in range(3):
        e = torch.randn(5, generator=gen, dtype=torch.float64)
        g = torch.randn(5, generator=gen, dtype=torch.float64) * 3
        cases.append(Case((e, g), label=f"random {i}"))
    g = torch.randn(5, generator=gen, dtype=torch.float64)
    cases.append(Case((2 * g, g), label="edge: e parallel to g (the result is 0)"))
    return cases


def _neutralize_unit(e, g):
    return e - (e @ g / g.norm()) * g  # (D,)


def _sgns_centre_gradient(v_c, u_o, u_neg):
    _, grad_v_c, _, _ = sgns_loss_and_gradient(
        v_c[None], u_o[None], u_neg[None], reduction="sum"
    )
    return grad_v_c[0]  # (D,)


def _sgns_cases(gen):
    cases = []
    for i in range(4):
        D, K = 4, 1 + i
        v_c, u_o = (
            torch.randn(D, generator=gen, dtype=torch.float64) for _ in range(2)
        )
        u_neg = torch.randn(K, D, generator=gen, dtype=torch.float64)
        cases.append(Case((v_c, u_o, u_neg), label=f"random {i} (K = {K})"))
    return cases


def _sgns_wrong_negatives(v_c, u_o, u_neg):
    pos = torch.sigmoid(u_o @ v_c) - 1
    return pos * u_o + torch.sigmoid(-(u_neg @ v_c)) @ u_neg  # (D,)


register(
    Exercise(
        "ch02.noise_distribution",
        "noise_distribution(counts: (V,), power: float) -> (V,)",
        noise_distribution,
        _noise_cases,
        "P_n(w) = count(w)^power / Σ_w' count(w')^power: it must sum to 1.",
        (
            Mistake(
                "the weights are not normalised to sum to 1",
                lambda c, power: c.double() ** power,
            ),
            Mistake(
                "the power is ignored (the unigram distribution)",
                lambda c, power: c / c.sum(),
            ),
        ),
    ),
    Exercise(
        "ch02.keep_probabilities",
        "keep_probabilities(counts: (V,), sample: float) -> (V,)",
        keep_probabilities,
        _keep_cases,
        "keep(w) = (√(f/t) + 1)·t/f with f = count/total and t = sample, and at most 1.",
        (
            Mistake(
                "the clip at 1 is missing (rare words get keep > 1)", _keep_unclipped
            ),
        ),
    ),
    Exercise(
        "ch02.glove_weight",
        "glove_weight(x: Tensor, x_max=100.0, alpha=0.75) -> Tensor",
        glove_weight,
        _glove_cases,
        "f(x) = (x / x_max)^α below x_max and exactly 1 from x_max on.",
        (Mistake("the clip at 1 above x_max is missing", _glove_unclipped),),
    ),
    Exercise(
        "ch02.neutralize",
        "neutralize(e: (D,), g: (D,)) -> (D,)",
        neutralize,
        _neutralize_cases,
        "Subtract the projection of e on g: e − (e·g / ‖g‖²) g; the result is orthogonal to g.",
        (Mistake("it divides by ‖g‖ instead of ‖g‖²", _neutralize_unit),),
    ),
    Exercise(
        "ch02.sgns_centre_gradient",
        "sgns_centre_gradient(v_c: (D,), u_o: (D,), u_neg: (K, D)) -> (D,)",
        _sgns_centre_gradient,
        _sgns_cases,
        "∂J/∂v_c = (σ(u_oᵀv_c) − 1) u_o + Σ_k σ(u_kᵀv_c) u_k.",
        (
            Mistake(
                "the negatives use σ(−u_kᵀv_c) instead of σ(u_kᵀv_c)",
                _sgns_wrong_negatives,
            ),
        ),
        rtol=1e-6,
        atol=1e-9,
    ),
)
