"""Chapter 1 exercises (word vectors): PPMI, skip-gram pairs, the softmax gradient, cosines.

References: ``course_lib.embeddings`` (``ppmi``, ``skipgram_pairs``,
``naive_softmax_loss_and_gradient``, ``cosine_similarity_matrix``).
"""

from __future__ import annotations

import torch

from course_lib.embeddings.cooccurrence import ppmi
from course_lib.embeddings.evaluation import cosine_similarity_matrix
from course_lib.embeddings.word2vec import (
    naive_softmax_loss_and_gradient,
    skipgram_pairs,
)
from course_lib.exercises.core import Case, Exercise, Mistake, register


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
