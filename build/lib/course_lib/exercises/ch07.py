"""Chapter 7 exercises (seq2seq, attention, MT): BLEU's parts, masked softmax, attention pooling.

References: ``course_lib.seq2seq`` (``bleu_stats``, ``BleuStats.brevity_penalty``,
``masked_softmax``, ``nadaraya_watson``).
"""

from __future__ import annotations

import math
from collections import Counter

import torch

from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.seq2seq.attention import masked_softmax
from course_lib.seq2seq.bleu import BleuStats, bleu_stats
from course_lib.seq2seq.pooling import nadaraya_watson

WORDS = "the a cat dog sat on mat is".split()


def _sentence(gen, lo=2, hi=9):
    n = int(torch.randint(lo, hi, (1,), generator=gen))
    return [WORDS[int(i)] for i in torch.randint(0, len(WORDS), (n,), generator=gen)]


def _clipped_precision(candidate, references, n):
    return bleu_stats(candidate, references, max_n=n).precision(n)


def _unclipped_precision(candidate, references, n):
    grams = [tuple(candidate[i : i + n]) for i in range(len(candidate) - n + 1)]
    seen = set().union(
        *(
            Counter(tuple(r[i : i + n]) for i in range(len(r) - n + 1))
            for r in references
        )
    )
    return sum(g in seen for g in grams) / len(grams) if grams else 0.0


def _precision_cases(gen):
    cases = [
        Case(
            (_sentence(gen), [_sentence(gen), _sentence(gen)], 1 + i % 2),
            label=f"random {i}",
        )
        for i in range(5)
    ]
    the7 = ["the"] * 7
    cases.append(
        Case(
            (the7, [["the", "cat", "is", "on", "the", "mat"]], 1),
            label="edge: the lecture's 'the the the ...'",
        )
    )
    cases.append(
        Case((["cat"], [["the", "cat"]], 2), label="edge: no bigram in the candidate")
    )
    return cases


def _brevity_penalty(c, r):
    return BleuStats((0,), (0,), c, r).brevity_penalty


def _bp_cases(gen):
    cases = [
        Case((int(c), int(r)), label=f"random {i}")
        for i, (c, r) in enumerate(torch.randint(1, 20, (5, 2), generator=gen).tolist())
    ]
    cases += [Case((9, 9), label="edge: c = r"), Case((12, 7), label="edge: c > r")]
    return cases


def _masked_cases(gen):
    cases = []
    for i, (B, S) in enumerate([(2, 5), (3, 4), (1, 6)]):
        scores = torch.randn(B, S, generator=gen, dtype=torch.float64) * 2
        lengths = torch.randint(1, S + 1, (B,), generator=gen)
        mask = torch.arange(S)[None, :] < lengths[:, None]  # (B, S)
        mask[0, :] = True
        mask[-1, S - 1] = False
        cases.append(Case((scores, mask), label=f"random {i}"))
    return cases


def _nw_cases(gen):
    cases = []
    for i in range(3):
        keys = torch.rand(6, generator=gen, dtype=torch.float64) * 5
        values = (
            torch.sin(keys) + torch.randn(6, generator=gen, dtype=torch.float64) * 0.1
        )
        queries = torch.rand(4, generator=gen, dtype=torch.float64) * 5
        cases.append(Case((queries, keys, values), label=f"random {i}"))
    return cases


def _nw_wrong_axis(queries, keys, values):
    d = queries[:, None] - keys[None, :]  # (Q, K)
    return torch.softmax(-0.5 * d**2, dim=0) @ values  # (Q,)


register(
    Exercise(
        "ch07.clipped_precision",
        "clipped_precision(candidate: list[str], references: list[list[str]], n: int) -> float",
        _clipped_precision,
        _precision_cases,
        "Count each candidate n-gram at most as often as it occurs in any single reference, "
        "then divide by the number of candidate n-grams (0 when there are none).",
        (Mistake("the counts are not clipped", _unclipped_precision),),
    ),
    Exercise(
        "ch07.brevity_penalty",
        "brevity_penalty(c: int, r: int) -> float",
        _brevity_penalty,
        _bp_cases,
        "BP = exp(1 − r/c) when the candidate is shorter (c < r), else 1.",
        (
            Mistake(
                "r and c are exchanged (exp(1 − c/r))",
                lambda c, r: math.exp(1 - c / r) if c < r else 1.0,
            ),
            Mistake(
                "the penalty is applied to long candidates too",
                lambda c, r: math.exp(1 - r / c),
            ),
        ),
    ),
    Exercise(
        "ch07.masked_softmax",
        "masked_softmax(scores: (B, S), mask: bool (B, S)) -> (B, S)",
        masked_softmax,
        _masked_cases,
        "Set the scores of masked positions (mask False) to −inf before the softmax: "
        "their weights become exactly 0.",
        (
            Mistake("the mask is forgotten", lambda s, m: torch.softmax(s, -1)),
            Mistake(
                "the softmax is taken before masking (rows no longer sum to 1)",
                lambda s, m: torch.softmax(s, -1) * m,
            ),
        ),
    ),
    Exercise(
        "ch07.nadaraya_watson",
        "nadaraya_watson(queries: (Q,), keys: (K,), values: (K,)) -> (Q,)",
        lambda q, k, v: nadaraya_watson(q, k, v)[0],
        _nw_cases,
        "f(x) = Σ_i softmax_i(−½(x − x_i)²) y_i: the softmax runs over the keys, for each query.",
        (Mistake("the softmax runs over the queries, not the keys", _nw_wrong_axis),),
    ),
)
