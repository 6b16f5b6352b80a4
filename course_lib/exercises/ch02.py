"""Chapter 2 exercises (training word vectors): noise, subsampling, GloVe, debiasing, SGNS.

References: ``course_lib.embeddings`` (``noise_distribution``, ``keep_probabilities``,
``glove_weight``, ``neutralize``, ``sgns_loss_and_gradient``, ``sgns_sgd_step``). Questions
on SGD, negative sampling and the hierarchical softmax at the end.
"""

from __future__ import annotations

import torch

from course_lib.embeddings.debias import neutralize
from course_lib.embeddings.glove import glove_weight
from course_lib.embeddings.negative_sampling import (
    SkipGramNS,
    noise_distribution,
    sgns_loss_and_gradient,
    sgns_sgd_step,
)
from course_lib.embeddings.subsampling import keep_probabilities
from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.exercises.quiz import Question, register_questions


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


def _sgns_update(V, U, c, o, negatives, lr):
    model = SkipGramNS(V.size(0), V.size(1), dtype=V.dtype)
    with torch.no_grad():
        model.V.copy_(V)
        model.U.copy_(U)
    sgns_sgd_step(model, torch.tensor([c]), torch.tensor([o]), negatives[None], lr)
    return model.V.detach().clone(), model.U.detach().clone()  # (n, D) each


def _sgns_update_cases(gen):
    cases = []
    f64 = dict(generator=gen, dtype=torch.float64)
    for i in range(3):
        V, U = torch.randn(6, 2, **f64), torch.randn(6, 2, **f64)  # (n, D) each
        c, o = (int(torch.randint(0, 6, (1,), generator=gen)) for _ in range(2))
        negatives = torch.randperm(6, generator=gen)[: 2 + i]  # (K,) distinct
        cases.append(Case((V, U, c, o, negatives, 0.5), label=f"random {i}"))
    V, U = torch.randn(5, 2, **f64), torch.randn(5, 2, **f64)
    cases.append(
        Case((V, U, 0, 1, torch.tensor([3, 3, 4]), 0.5), label="edge: 3 drawn twice")
    )
    return cases


def _gradients(V, U, c, o, negatives):
    """∂J/∂v_c (D,), ∂J/∂u_o (D,), ∂J/∂u_k (K, D) at the given tables."""
    _, g_v, g_o, g_neg = sgns_loss_and_gradient(
        V[c][None], U[o][None], U[negatives][None], reduction="sum"
    )
    return g_v[0], g_o[0], g_neg[0]


def _sgns_update_sequential(V, U, c, o, negatives, lr):
    V, U = V.clone(), U.clone()
    V[c] -= lr * _gradients(V, U, c, o, negatives)[0]  # v_c moves first ...
    _, g_o, g_neg = _gradients(V, U, c, o, negatives)  # ... then u's use the new v_c
    U[o] -= lr * g_o
    U.index_add_(0, negatives, g_neg, alpha=-lr)
    return V, U


def _sgns_update_overwrite(V, U, c, o, negatives, lr):
    g_v, g_o, g_neg = _gradients(V, U, c, o, negatives)
    V, U = V.clone(), U.clone()
    V[c] -= lr * g_v
    U[o] -= lr * g_o
    U[negatives] -= lr * g_neg  # a repeated id is written, not added, twice
    return V, U


def _sgns_update_ascent(V, U, c, o, negatives, lr):
    return _sgns_update(V, U, c, o, negatives, -lr)


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
    Exercise(
        "ch02.sgns_update",
        "sgns_update(V: (n, D), U: (n, D), c: int, o: int, negatives: (K,), lr) -> (V, U)",
        _sgns_update,
        _sgns_update_cases,
        "Compute all three gradients at the old tables, then v_c -= lr ∂J/∂v_c, "
        "u_o -= lr ∂J/∂u_o, u_k -= lr ∂J/∂u_k, adding up the steps of a row drawn twice "
        "(index_add_); return new tables.",
        (
            Mistake(
                "u_o and u_k are stepped with gradients taken after v_c has moved",
                _sgns_update_sequential,
            ),
            Mistake(
                "a negative drawn twice is stepped once (U[negatives] -= ... overwrites)",
                _sgns_update_overwrite,
            ),
            Mistake("the step goes up the gradient (+lr)", _sgns_update_ascent),
        ),
        rtol=1e-6,
        atol=1e-9,
    ),
)

register_questions(
    Question(
        "ch02.sgd_same_work",
        "In this chapter's experiment, with the same number of pairs processed, SGD with "
        "minibatches of 32 ends at a lower $J$ than gradient descent. Why?",
        answer="a",
        explanation="The work that buys gradient descent one exact step buys SGD P / 32 "
        "noisy ones, and many cheap steps get further than a few exact ones.",
        choices={
            "a": "the same work buys it many more steps",
            "b": "gradient descent is stuck in a local minimum",
            "c": "a minibatch's gradient is more accurate than the full one",
        },
        wrong={
            "b": "Gradient descent's J falls at every one of its steps: it is slow, not "
            "stuck. In high dimensions saddle points and flat regions, not bad local "
            "minima, are the common obstacle.",
            "c": "A minibatch's gradient is an unbiased but noisy estimate of the full "
            "gradient, never a more accurate one.",
        },
    ),
    Question(
        "ch02.noise_ratio",
        "'the' occurs 10,000 times and a rare word 16 times. How many times more often is "
        "'the' drawn as a negative under the $\\text{count}^{3/4}$ distribution?",
        answer=125,
        explanation="(10,000 / 16)^{3/4} = 625^{3/4} = 5³ = 125: the power shrinks the "
        "unigram ratio of 625 to 125.",
        wrong={
            625: "That is the unigram ratio (power 1); the 3/4 power flattens it.",
            1: "That is the uniform distribution (power 0).",
            468.75: "That multiplies the ratio by 3/4; the 3/4 is a power.",
        },
    ),
    Question(
        "ch02.negative_cost",
        "With a vocabulary of 10,000 words and $K = 5$ negatives, how many dot products "
        "$u_w^\\top v_c$ does one skip-gram pair cost in negative sampling's loss?",
        answer=6,
        explanation="One for the observed outside word and one for each of the 5 "
        "negatives, whatever the vocabulary's size.",
        wrong={
            5: "The observed outside word is scored too: −log σ(u_oᵀv_c).",
            10_000: "That is the full softmax, which negative sampling replaces.",
        },
    ),
    Question(
        "ch02.after_neutralize",
        "After 'doctor' is neutralized with respect to the bias direction $g$ (and nothing "
        "is equalized), which statement holds?",
        answer="a",
        explanation="Neutralizing removes the component along g: e − (e·g/‖g‖²) g is "
        "orthogonal to g, and that is all it promises.",
        choices={
            "a": "'doctor' has no component along $g$",
            "b": "'doctor' is now equally far from 'he' and from 'she'",
            "c": "the bias can no longer be recovered from the neighbours of 'doctor'",
        },
        wrong={
            "b": "Only if 'he' and 'she' differ along g alone, symmetrically: that is what "
            "equalizing does to a pair, not what neutralizing does to a word.",
            "c": "Gonen and Goldberg (2019) recover it: the neighbourhoods of the "
            "neutralized words still cluster by the removed gender.",
        },
    ),
)
