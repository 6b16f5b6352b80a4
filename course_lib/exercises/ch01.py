"""Chapter 1 exercises (word vectors): PPMI, skip-gram pairs, the softmax gradient, cosines.

References: ``course_lib.embeddings`` (``ppmi``, ``skipgram_pairs``,
``naive_softmax_loss_and_gradient``, ``cosine_similarity_matrix``). Questions on pairs, the
softmax gradient, CBOW against skip-gram and PMI at the end.
"""

from __future__ import annotations

import math

import torch

from course_lib.embeddings.cooccurrence import ppmi
from course_lib.embeddings.evaluation import cosine_similarity_matrix
from course_lib.embeddings.word2vec import (
    naive_softmax_loss_and_gradient,
    skipgram_pairs,
)
from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.exercises.quiz import Question, register_questions


def _counts(gen: torch.Generator, V: int, C: int) -> torch.Tensor:
    return torch.randint(0, 6, (V, C), generator=gen).double()  # (V, C)


def _ppmi_cases(gen):
    cases = [Case((_counts(gen, 4, 5),), label=f"random {i}") for i in range(4)]
    zero_row = _counts(gen, 3, 3)
    zero_row[1] = 0
    cases.append(Case((zero_row,), label="edge: a word that never occurs"))
    cases.append(
        Case((torch.tensor([[2.0, 0.0], [0.0, 3.0]]),), label="edge: diagonal")
    )
    return cases


def _pmi_unclipped(counts):
    p = counts.double() / counts.sum()  # (V, C)
    ratio = p / (p.sum(1, keepdim=True) * p.sum(0, keepdim=True))  # (V, C)
    return ratio.log().nan_to_num(nan=0.0, neginf=0.0)  # (V, C)


def _one_sentence_pairs(ids, window):
    return skipgram_pairs([list(ids)], window)  # (P, 2)


def _pairs_loop(ids, window, lo, hi_extra):
    pairs = [
        (ids[t], ids[t + d])
        for t in range(len(ids))
        for d in range(-window + hi_extra, window + 1 - hi_extra)
        if abs(d) >= lo and 0 <= t + d < len(ids)
    ]
    return torch.tensor(pairs, dtype=torch.long).reshape(-1, 2)  # (P, 2)


def _pair_cases(gen):
    cases = []
    for i in range(4):
        n = int(torch.randint(3, 9, (1,), generator=gen))
        ids = torch.randint(0, 10, (n,), generator=gen).tolist()
        cases.append(Case((ids, 1 + i % 3), label=f"random {i}"))
    cases.append(Case(([4, 7], 3), label="edge: window wider than the sentence"))
    return cases


def _centre_gradient(v_c, o, U):
    _, grad_v_c, _ = naive_softmax_loss_and_gradient(
        v_c[None], torch.tensor([o]), U, reduction="sum"
    )
    return grad_v_c[0]  # (D,)


def _gradient_cases(gen):
    cases = []
    for i in range(4):
        V, D = 5 + i, 3
        U = torch.randn(V, D, generator=gen, dtype=torch.float64)
        v_c = torch.randn(D, generator=gen, dtype=torch.float64)
        o = int(torch.randint(0, V, (1,), generator=gen))
        cases.append(Case((v_c, o, U), label=f"random {i}"))
    U = torch.randn(4, 3, generator=gen, dtype=torch.float64)
    cases.append(
        Case((30 * U[0], 0, U), label="edge: large scores (softmax overflow?)")
    )
    return cases


def _gradient_without_y(v_c, o, U):
    return U.T @ torch.softmax(U @ v_c, 0)  # (D,)


def _cosine_cases(gen):
    cases = [
        Case(
            (torch.randn(4, 3, generator=gen, dtype=torch.float64),),
            label=f"random {i}",
        )
        for i in range(3)
    ]
    A = torch.randn(3, 4, generator=gen, dtype=torch.float64)
    A[2] = 0
    cases.append(Case((A,), label="edge: a zero vector (its cosines are 0)"))
    return cases


register(
    Exercise(
        "ch01.ppmi",
        "ppmi(counts: (V, C)) -> (V, C)",
        ppmi,
        _ppmi_cases,
        "PPMI = max(0, log P(w,c) / (P(w) P(c))), and 0 where the count is 0.",
        (Mistake("the clip at 0 is missing (that is PMI, not PPMI)", _pmi_unclipped),),
    ),
    Exercise(
        "ch01.skipgram_pairs",
        "skipgram_pairs(ids: list[int], window: int) -> LongTensor (P, 2)",
        _one_sentence_pairs,
        _pair_cases,
        "For each centre position t, offsets d = -window..window, d != 0, kept inside the "
        "sentence, in that order: rows (ids[t], ids[t + d]).",
        (
            Mistake(
                "the window stops one word short", lambda i, w: _pairs_loop(i, w, 1, 1)
            ),
            Mistake(
                "the centre is paired with itself (d = 0)",
                lambda i, w: _pairs_loop(i, w, 0, 0),
            ),
        ),
    ),
    Exercise(
        "ch01.centre_gradient",
        "centre_gradient(v_c: (D,), o: int, U: (V, D)) -> (D,)",
        _centre_gradient,
        _gradient_cases,
        "∂J/∂v_c = Uᵀ(ŷ − y) with ŷ = softmax(U v_c) and y the one-hot of o.",
        (
            Mistake(
                "y is not subtracted (Uᵀŷ instead of Uᵀ(ŷ − y))", _gradient_without_y
            ),
        ),
        rtol=1e-6,
        atol=1e-9,
    ),
    Exercise(
        "ch01.cosine_similarity_matrix",
        "cosine_similarity_matrix(A: (N, D)) -> (N, N)",
        cosine_similarity_matrix,
        _cosine_cases,
        "Divide each row by its length first (a zero row stays zero), then take A Aᵀ.",
        (
            Mistake(
                "the rows are not normalised (plain dot products)", lambda A: A @ A.T
            ),
        ),
    ),
)

register_questions(
    Question(
        "ch01.pair_count",
        "How many (centre, outside) pairs does `skipgram_pairs` make from one sentence of "
        "5 words with a window of $m = 2$?",
        answer=14,
        explanation="Positions 1 to 5 have 2, 3, 4, 3 and 2 neighbours within two words "
        "inside the sentence: 14 pairs. A position is never paired with itself.",
        wrong={
            20: "That is 2m = 4 pairs for each of the 5 positions; the window is cut at "
            "the ends of the sentence.",
            7: "That counts each pair of nearby positions once; each gives two pairs, one "
            "with either word as the centre.",
            19: "That pairs each position with itself too; offset 0 is never a pair.",
        },
    ),
    Question(
        "ch01.outside_gradient",
        "For one pair $(c, o)$ with the full softmax, $J = -\\log P(o \\mid c)$. What is "
        "$\\partial J / \\partial u_w$ for a word $w \\ne o$?",
        answer="b",
        explanation="$\\partial J/\\partial u_w = (\\hat y_w - y_w)\\, v_c$ and $y_w = 0$ "
        "for $w \\ne o$: every word's outside vector is pushed away from $v_c$ in "
        "proportion to the probability the model wrongly gave it.",
        choices={
            "a": "0, since $w$ was not observed",
            "b": "$\\hat y_w\\, v_c$",
            "c": "$(\\hat y_w - 1)\\, v_c$",
        },
        wrong={
            "a": "$u_w$ appears in the softmax's denominator, so every word's vector gets "
            "a gradient; that is why the full softmax costs O(|V| d) a pair.",
            "c": "The −1 is $y_w$ for the observed word $o$ only; for $w \\ne o$, "
            "$y_w = 0$.",
        },
    ),
    Question(
        "ch01.cbow_predictions",
        "A sentence of $n$ words, window $m$, ignoring the sentence's ends: how many "
        "softmax predictions do CBOW and skip-gram make?",
        answer="a",
        explanation="CBOW predicts each centre word once, from the average of its $2m$ "
        "context words; skip-gram predicts each of the $2m$ outside words from the centre.",
        choices={
            "a": "CBOW $n$, skip-gram $2mn$",
            "b": "CBOW $2mn$, skip-gram $n$",
            "c": "both $2mn$",
        },
        wrong={
            "b": "That swaps the two models: CBOW is the one that averages the context "
            "and predicts the centre, once per position.",
            "c": "CBOW averages the context vectors into one input, so it makes one "
            "prediction per position, not one per pair.",
        },
    ),
    Question(
        "ch01.pmi",
        "A word and a context have $P(w, c) = 0.01$, $P(w) = 0.1$ and $P(c) = 0.05$. "
        "What is their PMI, with the natural logarithm?",
        answer=math.log(2),
        explanation="PMI = log P(w, c) / (P(w) P(c)) = log (0.01 / 0.005) = log 2 ≈ 0.693: "
        "they occur together twice as often as if they were independent.",
        wrong={
            2.0: "That is the ratio P(w, c) / (P(w) P(c)) itself; PMI is its logarithm.",
            math.log10(
                2
            ): "That uses log base 10; the chapter's PMI uses the natural log.",
            math.log(0.1): "That is log P(w, c) / P(w) = log P(c | w); PMI divides by "
            "P(c) as well.",
        },
    ),
)
