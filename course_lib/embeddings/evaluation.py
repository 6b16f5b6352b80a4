r"""Evaluating word vectors: nearest neighbours, analogies, similarity correlation. Chapter 1.

CS224N lecture 1 (and lecture 2's intrinsic evaluation). Cosine similarity
cos(x, y) = xᵀy / (‖x‖ ‖y‖); the analogy "a is to b as c is to ?" is answered by 3CosAdd,
d = argmax_{d ∉ {a, b, c}} cos(x_d, x_b - x_a + x_c) on unit-length rows (Mikolov, Yih and Zweig,
2013; Levy and Goldberg, 2014), e.g. man : king :: woman : queen, scored on Mikolov et al.'s (2013)
question set with gensim's conventions; word-similarity sets (WordSim-353, SimLex-999) are scored
by the Spearman rank correlation between human ratings and cosines.

Words are looked up through any vocabulary-like object: ``word in vocab``, ``vocab[word]`` -> id and
``vocab.token(id)`` -> word (a plain ``dict`` word -> id works too). A missing word raises
``OutOfVocabularyError`` (a ``KeyError`` and a ``ValueError``) naming it, in the single-query
functions; the batch evaluations count such questions as not covered instead.

Shape letters: V vocabulary, D vector width, N and M rows, Q questions, R candidate words.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
from torch import Tensor

from course_lib.embeddings._common import describe

Quad = tuple[str, str, str, str]


class OutOfVocabularyError(KeyError, ValueError):
    """Words that are not in the vocabulary; ``.words`` lists them."""

    def __init__(self, words: Sequence[str]) -> None:
        self.words = list(words)
        super().__init__(self.words)

    def __str__(self) -> str:
        return "not in the vocabulary: " + ", ".join(repr(w) for w in self.words)


def _lookup(vocab: Any, words: Sequence[str], n_rows: int) -> list[int]:
    missing = [w for w in words if w not in vocab]
    if missing:
        raise OutOfVocabularyError(missing)
    ids = [int(vocab[w]) for w in words]
    for w, i in zip(words, ids, strict=True):
        if not 0 <= i < n_rows:
            raise ValueError(f"{w!r} has id {i}, outside the {n_rows} rows of E")
    return ids


def _token_of(vocab: Any) -> Callable[[int], str]:
    if hasattr(vocab, "token"):
        return vocab.token
    if isinstance(vocab, Mapping):
        inverse = {int(i): w for w, i in vocab.items()}
        return inverse.__getitem__
    raise TypeError(
        f"vocab needs .token(id) or must be a dict word -> id, got {type(vocab)}"
    )


def _check_matrix(E: Tensor, name: str = "E") -> None:
    if not isinstance(E, Tensor) or E.dim() != 2:
        raise ValueError(
            f"{name} must be a 2-D tensor of row vectors (V, D), got {describe(E)}"
        )


def _unit_rows(E: Tensor, eps: float = 1e-12) -> Tensor:
    return E / E.norm(dim=-1, keepdim=True).clamp_min(eps)  # (..., D)


def _top_words(
    sims: Tensor, k: int, vocab: Any, n_excluded: int
) -> list[tuple[str, float]]:
    top = sims.topk(min(k, sims.numel() - n_excluded))  # (k,), (k,)
    token = _token_of(vocab)
    return [
        (token(int(i)), float(s)) for s, i in zip(top.values, top.indices, strict=True)
    ]


def cosine_similarity_matrix(
    A: Tensor, B: Tensor | None = None, eps: float = 1e-12
) -> Tensor:
    r"""All cosines cos(a_i, b_j) = a_iᵀb_j / (‖a_i‖ ‖b_j‖) (lecture 1). Chapter 1.

    A: (N, D); B: (M, D), default A. Returns (N, M). Zero rows give cosine 0.
    """
    _check_matrix(A, "A")
    B = A if B is None else B
    _check_matrix(B, "B")
    if A.size(1) != B.size(1):
        raise ValueError(
            f"A and B need the same width D, got {describe(A)} and {describe(B)}"
        )
    return _unit_rows(A, eps) @ _unit_rows(B, eps).T  # (N, D) @ (D, M) -> (N, M)


def nearest_neighbours(
    E: Tensor, vocab: Any, word: str | Tensor, k: int = 10, *, exclude_self: bool = True
) -> list[tuple[str, float]]:
    r"""The k words whose vectors have the largest cosine with ``word``'s. Chapter 1.

    E: (V, D), row i = the vector of id i. ``word`` is a word or a query vector (D,).
    Returns [(word, cosine)], most similar first; the word itself is left out if ``exclude_self``.
    """
    _check_matrix(E)
    exclude: list[int] = []
    if isinstance(word, str):
        (i,) = _lookup(vocab, [word], E.size(0))
        query = E[i]  # (D,)
        exclude = [i] if exclude_self else []
    else:
        query = word  # (D,)
        if query.shape != (E.size(1),):
            raise ValueError(
                f"a query vector must be ({E.size(1)},), got {describe(query)}"
            )
    sims = _unit_rows(E) @ _unit_rows(query.to(E.dtype))  # (V,)
    sims[exclude] = -math.inf
    return _top_words(sims, k, vocab, n_excluded=len(exclude))


def analogy(
    E: Tensor, vocab: Any, a: str, b: str, c: str, k: int = 1
) -> list[tuple[str, float]]:
    r"""3CosAdd: "a is to b as c is to d", d = argmax_{d ∉ {a,b,c}} cos(x_d, x_b - x_a + x_c).

    Rows are made unit length first (Mikolov et al., 2013; gensim's ``most_similar``). E: (V, D).
    Returns the top k [(word, cosine)]; a missing a, b or c raises OutOfVocabularyError. Chapter 1.
    """
    _check_matrix(E)
    ids = _lookup(vocab, [a, b, c], E.size(0))
    En = _unit_rows(E)  # (V, D)
    target = _unit_rows(En[ids[1]] - En[ids[0]] + En[ids[2]])  # (D,)
    sims = En @ target  # (V,)
    sims[ids] = -math.inf
    return _top_words(sims, k, vocab, n_excluded=len(set(ids)))


def _group_questions(questions: Any) -> Mapping[str, Sequence[Quad]]:
    """{section: quads} from a mapping, a list of quads, or (section, a, b, c, d) tuples."""
    if isinstance(questions, Mapping):
        return questions
    questions = list(questions)
    if questions and all(len(q) == 5 for q in questions):
        sections: dict[str, list[Quad]] = {}
        for section, *quad in questions:
            sections.setdefault(section, []).append(tuple(quad))
        return sections
    return {"all": questions}


def evaluate_analogies(
    E: Tensor,
    vocab: Any,
    questions: Mapping[str, Sequence[Quad]] | Sequence[Quad],
    *,
    restrict_vocab: int | None = None,
    lowercase: bool = True,
    chunk_size: int = 512,
) -> dict[str, Any]:
    r"""Accuracy of 3CosAdd on analogy questions (a, b, c, d), batched. Chapter 1.

    questions: {section: [(a, b, c, d), ...]}, one list of (a, b, c, d) (section ``"all"``), or
    (section, a, b, c, d) tuples as ``course_lib.data.analogy_questions()`` reads them.
    ``lowercase`` matches words case-insensitively, as gensim does by default. Gensim's convention:
    the candidates are ids < ``restrict_vocab`` (the most frequent words when the vocabulary is
    sorted by frequency; default all of E), a question counts as covered only if its 4 words are
    candidates, and accuracy = correct / covered. a, b, c are never answers.
    Returns dict(accuracy, correct, covered, total, sections={name: same keys}).
    """
    _check_matrix(E)
    sections = _group_questions(questions)
    R = E.size(0) if restrict_vocab is None else min(int(restrict_vocab), E.size(0))
    if R < 1:
        raise ValueError(f"restrict_vocab must be >= 1, got {restrict_vocab}")
    En = _unit_rows(E[:R])  # (R, D)
    results: dict[str, dict[str, Any]] = {}
    for name, quads in sections.items():
        ids = []
        for quad in quads:
            if len(quad) != 4:
                raise ValueError(
                    f"a question must be 4 words (a, b, c, d), got {quad!r} in {name!r}"
                )
            if lowercase:
                quad = tuple(w.lower() for w in quad)
            if all(w in vocab for w in quad):
                q_ids = [int(vocab[w]) for w in quad]
                if all(0 <= i < R for i in q_ids):
                    ids.append(q_ids)
        correct = 0
        table = torch.tensor(ids, dtype=torch.long, device=E.device)  # (Q, 4)
        table = table.view(-1, 4)  # (Q, 4), also when Q = 0
        for chunk in table.split(chunk_size):
            a, b, c, d = chunk.unbind(dim=1)  # (q,) each
            scores = (En[b] - En[a] + En[c]) @ En.T  # (q, D) @ (D, R) -> (q, R)
            scores = scores.scatter(1, chunk[:, :3], -math.inf)  # (q, R)
            correct += int((scores.argmax(dim=1) == d).sum())
        covered = len(ids)
        results[name] = dict(
            accuracy=correct / covered if covered else math.nan,
            correct=correct,
            covered=covered,
            total=len(quads),
        )
    correct = sum(r["correct"] for r in results.values())
    covered = sum(r["covered"] for r in results.values())
    return dict(
        accuracy=correct / covered if covered else math.nan,
        correct=correct,
        covered=covered,
        total=sum(r["total"] for r in results.values()),
        sections=results,
    )


def evaluate_similarity(
    E: Tensor, vocab: Any, pairs: Sequence[tuple[str, str, float]]
) -> dict[str, Any]:
    r"""Correlation between human similarity ratings and cosines (WordSim-353 style). Chapter 1.

    pairs: [(word1, word2, rating)]. Pairs with a word outside the vocabulary (or E) are skipped
    and listed. Returns dict(spearman, pearson, covered, total, oov_pairs); the correlations are
    nan when fewer than 2 pairs are covered.
    """
    _check_matrix(E)
    if len(pairs) == 0:
        raise ValueError("pairs is empty: expected [(word1, word2, rating), ...]")
    kept, ratings, oov = [], [], []
    for pair in pairs:
        if len(pair) != 3:
            raise ValueError(f"a pair must be (word1, word2, rating), got {pair!r}")
        w1, w2, rating = pair
        if (
            w1 in vocab
            and w2 in vocab
            and all(0 <= int(vocab[w]) < E.size(0) for w in (w1, w2))
        ):
            kept.append((int(vocab[w1]), int(vocab[w2])))
            ratings.append(float(rating))
        else:
            oov.append(tuple(pair))
    spearman = pearson = math.nan
    if len(kept) >= 2:
        ids = torch.tensor(kept, dtype=torch.long, device=E.device)  # (N, 2)
        En = _unit_rows(E[ids])  # (N, 2, D)
        cosines = (En[:, 0] * En[:, 1]).sum(dim=1).cpu()  # (N,)
        spearman, pearson = _correlations(ratings, cosines.double().numpy())
    return dict(
        spearman=spearman,
        pearson=pearson,
        covered=len(kept),
        total=len(pairs),
        oov_pairs=oov,
    )


def _correlations(x, y) -> tuple[float, float]:
    """Spearman's ρ (ties at their average rank) and Pearson's r, by ``scipy.stats``;
    nan when either side is constant (a correlation is undefined there)."""
    import warnings

    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        return float(stats.spearmanr(x, y)[0]), float(stats.pearsonr(x, y)[0])
