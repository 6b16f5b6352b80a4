"""Chapter 7 exercises (seq2seq, attention, MT): BLEU's parts, masked softmax, attention
pooling, the additive score, one step of beam search; and the chapter's questions.

References: ``course_lib.seq2seq`` (``bleu_stats``, ``BleuStats.brevity_penalty``,
``masked_softmax``, ``nadaraya_watson``, ``AdditiveScore``) and the step of
``course_lib.decoding.beam_search`` (``scores + log_p``, top K of K·V, back-pointers).
"""

from __future__ import annotations

import math
from collections import Counter

import torch

from course_lib.exercises.core import Case, Exercise, Mistake, register
from course_lib.exercises.quiz import Question, register_questions
from course_lib.seq2seq.attention import AdditiveScore, masked_softmax
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


def _additive(s, H, W1, W2, v):
    score = AdditiveScore(s.size(-1), H.size(-1), W1.size(0)).to(H.dtype)
    with torch.no_grad():
        score.W1.weight.copy_(W1)
        score.W2.weight.copy_(W2)
        score.v.weight.copy_(v[None])
        return score(s, score.project_keys(H))  # (B, S)


def _additive_cases(gen):
    cases = []
    for i, (B, S, dq, dk, A) in enumerate([(2, 5, 3, 4, 6), (1, 3, 4, 4, 2)]):
        s, H, W1, W2, v = (
            torch.randn(*shape, generator=gen, dtype=torch.float64)
            for shape in ((B, dq), (B, S, dk), (A, dk), (A, dq), (A,))
        )
        cases.append(Case((s, H, W1, W2, v), label=f"random {i}"))
    return cases


def _additive_no_tanh(s, H, W1, W2, v):
    return (H @ W1.T + (s @ W2.T)[:, None]) @ v  # (B, S)


def _additive_tanh_outside(s, H, W1, W2, v):
    return torch.tanh((H @ W1.T + (s @ W2.T)[:, None]) @ v)  # (B, S)


def _beam_step(scores, log_p, K):
    V = log_p.size(-1)
    top, idx = (scores[:, None] + log_p).view(-1).topk(K)  # (K,) of the K·V
    return top, idx // V, idx % V  # scores, back-pointers (parent beams), tokens


def _beam_cases(gen):
    cases = []
    for i, (K, V) in enumerate([(3, 5), (2, 6), (4, 4)]):
        scores = -torch.rand(K, generator=gen, dtype=torch.float64) * 3  # (K,)
        log_p = torch.randn(K, V, generator=gen, dtype=torch.float64).log_softmax(-1)
        cases.append(Case((scores, log_p, K), label=f"random {i}"))
    first = torch.tensor([0.0, -math.inf, -math.inf], dtype=torch.float64)
    log_p = torch.randn(3, 5, generator=gen, dtype=torch.float64).log_softmax(-1)
    cases.append(Case((first, log_p, 3), label="edge: the first step, one live beam"))
    return cases


def _beam_swapped(scores, log_p, K):
    top, parent, token = _beam_step(scores, log_p, K)
    return top, token, parent


def _beam_no_prefix(scores, log_p, K):
    V = log_p.size(-1)
    top, idx = log_p.reshape(-1).topk(K)  # ranked by the last token alone
    return scores[idx // V] + top, idx // V, idx % V


def _beam_no_backpointers(scores, log_p, K):
    top, _, token = _beam_step(scores, log_p, K)
    return top, torch.arange(K), token  # survivor j said to extend beam j


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
    Exercise(
        "ch07.additive_score",
        "additive_score(s: (B, d_q), H: (B, S, d_k), W1: (A, d_k), W2: (A, d_q), v: (A,)) -> (B, S)",
        _additive,
        _additive_cases,
        "e_i = vᵀ tanh(W1 h_i + W2 s) for every encoder state h_i: W2 s is computed once and "
        "broadcast over the S positions; the tanh comes before v.",
        (
            Mistake("the tanh is left out (the score is linear)", _additive_no_tanh),
            Mistake(
                "the tanh is applied after v: tanh(vᵀ(W1 h_i + W2 s))",
                _additive_tanh_outside,
            ),
        ),
        rtol=1e-6,
        atol=1e-10,
    ),
    Exercise(
        "ch07.beam_step",
        "beam_step(scores: (K,), log_p: (K, V), K: int) -> (scores (K,), parent (K,), token (K,))",
        _beam_step,
        _beam_cases,
        "Add each beam's score to its row of log-probabilities, take the K best of all K·V "
        "sums (best first), and keep for each the beam it extends (index // V) and its "
        "token (index % V).",
        (
            Mistake("parent and token are exchanged", _beam_swapped),
            Mistake(
                "the candidates are ranked by the new token's log-probability alone, "
                "without the prefix's score",
                _beam_no_prefix,
            ),
            Mistake(
                "no back-pointers: survivor j is taken to extend beam j",
                _beam_no_backpointers,
            ),
        ),
    ),
)

register_questions(
    Question(
        "ch07.beam_candidates",
        "Beam search with $K = 4$ beams and a target vocabulary of $V = 10{,}000$ words: "
        "how many extensions of the live hypotheses does one step score, for one sentence?",
        answer=40000,
        explanation="Each of the K beams is extended by each of the V words, K · V = 40,000 "
        "sums of log-probabilities, of which the K best survive.",
        wrong={
            4: "That is the number of survivors; every beam is first extended by every word.",
            10000: "That is one beam's extensions; there are K of them.",
            16: "Taking each beam's top K first leaves K² to compare, but the step scores "
            "all K · V extensions to find them.",
        },
    ),
    Question(
        "ch07.bigram_precision",
        "Candidate *the cat the cat on the mat*, reference *the cat is on the mat*. What "
        "is BLEU's clipped bigram precision $p_2$?",
        answer=0.5,
        explanation="The candidate has 6 bigrams; *the cat* occurs twice but once in the "
        "reference, so it counts once; *on the* and *the mat* match; *cat the* and *cat on* "
        "do not: 3/6.",
        wrong={
            4
            / 6: "That counts *the cat* twice: counts are clipped at the reference's.",
            3
            / 5: "The denominator is the candidate's bigrams (6), not the reference's (5).",
        },
    ),
    Question(
        "ch07.length_bias",
        "Without length normalisation, which outputs does a wide beam tend to prefer?",
        answer="a",
        explanation="Every token adds a log-probability below 0, so a shorter hypothesis "
        "has fewer negative terms; dividing by $|y|^\\alpha$ removes most of that bias.",
        choices={
            "a": "short ones",
            "b": "long ones",
            "c": "neither: the sum of log-probabilities does not depend on the length",
        },
        wrong={
            "b": "Each extra token adds a negative log-probability: length lowers the score.",
            "c": "The sum has one term per token, each negative, so it falls with the length.",
        },
    ),
    Question(
        "ch07.search_error",
        "For a wrong dev translation $\\hat y$, the model gives the reference $y^*$ a higher "
        "(length-normalised) score than $\\hat y$. What should be improved first?",
        answer="b",
        explanation="The model prefers the right answer and the beam did not find it: a "
        "search error, which a wider beam can fix.",
        choices={
            "a": "the model: it should score y* higher",
            "b": "the search: a wider beam",
            "c": "neither: BLEU is wrong",
        },
        wrong={
            "a": "The model already scores y* higher than ŷ; it is the beam that missed y*.",
            "c": "The comparison uses the model's own scores, not BLEU: the beam missed y*.",
        },
    ),
)
