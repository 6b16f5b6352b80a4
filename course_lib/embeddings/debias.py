r"""Debiasing word vectors: bias direction, neutralize, equalize. Chapter 2.

Bolukbasi, Chang, Zou, Saligrama and Kalai (2016), "Man is to computer programmer as woman is to
homemaker? Debiasing word embeddings", as taught in *Sequence Models* (week 2, "Operations on
word vectors"). Vectors are meant to have unit length, as in the paper: normalise E's rows first
(``debias`` does).

* Bias direction g: the first principal component of the definitional pairs' centred vectors
  e_a - μ, e_b - μ with μ = (e_a + e_b) / 2 (the paper, §5; ``method="pca"``), or simply the
  mean difference e_a - e_b (*Sequence Models* uses g = e_woman - e_man; ``method="mean"``).
  Oriented towards the first word of the pairs, returned with unit length.
* Neutralize: e_bias = (e·g / ‖g‖²) g, e_debiased = e - e_bias, so e ⊥ g afterwards.
* Equalize a pair (e_1, e_2): μ = (e_1 + e_2)/2, μ_B = (μ·g/‖g‖²) g, μ_⊥ = μ - μ_B,
  e_iB = (e_i·g/‖g‖²) g, then e_i ← μ_⊥ + √|1 - ‖μ_⊥‖²| (e_iB - μ_B) / ‖e_i - μ_⊥ - μ_B‖
  (*Sequence Models*), or with ‖e_iB - μ_B‖ in the denominator (the paper: unit-length results).
  Either way the two words differ only along g, by equal and opposite amounts.

Shape letters: V vocabulary, D width, n words, P pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor

from course_lib.embeddings.evaluation import _check_matrix, _lookup, _unit_rows

__all__ = [
    "bias_direction",
    "debias",
    "definitional_pca",
    "equalize",
    "neutralize",
    "projections",
]

Pair = tuple[str, str]


def _pair_vectors(
    E: Tensor, vocab: Any, pairs: Sequence[Pair]
) -> tuple[Tensor, Tensor]:
    _check_matrix(E)
    pairs = [tuple(p) for p in pairs]
    if not pairs or any(len(p) != 2 for p in pairs):
        raise ValueError(
            f"pairs must be a non-empty list of (word, word), got {pairs!r}"
        )
    words = [w for p in pairs for w in p]
    ids = _lookup(vocab, list(dict.fromkeys(words)), E.size(0))  # raises if missing
    row = dict(zip(dict.fromkeys(words), ids, strict=True))
    a = E[[row[p[0]] for p in pairs]]  # (P, D)
    b = E[[row[p[1]] for p in pairs]]  # (P, D)
    return a, b


def definitional_pca(
    E: Tensor, vocab: Any, pairs: Sequence[Pair]
) -> tuple[Tensor, Tensor]:
    r"""PCA of the definitional pairs' centred vectors (Bolukbasi et al., 2016, §5). Chapter 2.

    For each pair, μ = (e_a + e_b)/2 and the rows e_a - μ, e_b - μ; their singular directions.
    Returns the components (k, D) (rows, unit length) and each one's share of the variance (k,),
    k = min(P, D): the 2P rows come in ± pairs, so they span at most P directions, and the
    other singular values are 0. A dominant first share means one direction captures the
    pairs' difference.
    """
    a, b = _pair_vectors(E, vocab, pairs)  # (P, D) each
    half = (a - b) / 2  # (P, D)  e_a - μ  (and e_b - μ = -half)
    centred = torch.cat([half, -half])  # (2P, D)
    _, S, Vh = torch.linalg.svd(centred, full_matrices=False)  # (min(2P, D),), (·, D)
    k = min(len(pairs), E.shape[1])
    return Vh[:k], S[:k] ** 2 / (S**2).sum()


def bias_direction(
    E: Tensor, vocab: Any, definitional_pairs: Sequence[Pair], *, method: str = "pca"
) -> Tensor:
    r"""The bias direction g from definitional pairs such as ("she", "he"). Chapter 2.

    ``method="pca"``: the first principal component of the centred pair vectors (the paper);
    ``"mean"``: the mean of e_a - e_b (*Sequence Models*' e_woman - e_man for one pair).
    Oriented so that Σ (e_a - e_b)·g > 0, i.e. towards the pairs' first words. Returns (D,),
    unit length.
    """
    a, b = _pair_vectors(E, vocab, definitional_pairs)  # (P, D) each
    if method == "pca":
        g = definitional_pca(E, vocab, definitional_pairs)[0][0]  # (D,)
    elif method == "mean":
        g = (a - b).mean(dim=0)  # (D,)
    else:
        raise ValueError(f"method must be 'pca' or 'mean', got {method!r}")
    if float(g.norm()) == 0:
        raise ValueError("the pairs' vectors are identical: there is no bias direction")
    if float(((a - b) @ g).sum()) < 0:
        g = -g  # (D,)
    return g / g.norm()  # (D,)


def _check_g(g: Tensor, D: int) -> Tensor:
    if not isinstance(g, Tensor) or g.shape != (D,):
        raise ValueError(
            f"g must be a vector (D,) = ({D},), got {tuple(getattr(g, 'shape', ()))}"
        )
    norm2 = (g * g).sum()
    if float(norm2) == 0:
        raise ValueError("g is the zero vector: no direction to project on")
    return norm2


def neutralize(e: Tensor, g: Tensor) -> Tensor:
    r"""e - (e·g / ‖g‖²) g: remove the component along g (Bolukbasi et al., 2016). Chapter 2.

    e: (..., D) one or many vectors; g: (D,). Returns the same shape, orthogonal to g.
    """
    norm2 = _check_g(g, e.size(-1))
    e_bias = (e @ g / norm2)[..., None] * g  # (..., D)
    return e - e_bias  # (..., D)


def equalize(
    pair: Pair, g: Tensor, E: Tensor, vocab: Any, *, variant: str = "sequence_models"
) -> tuple[Tensor, Tensor]:
    r"""Equalize a pair such as ("actress", "actor"): symmetric about the g-neutral axis. Chapter 2.

    μ = (e_1+e_2)/2, μ_B = (μ·g/‖g‖²) g, μ_⊥ = μ - μ_B, e_iB = (e_i·g/‖g‖²) g and
    e_i ← μ_⊥ + √|1 - ‖μ_⊥‖²| (e_iB - μ_B) / ‖e_i - μ_⊥ - μ_B‖ (``"sequence_models"``, the
    course's formula) or / ‖e_iB - μ_B‖ (``"paper"``: Bolukbasi et al.'s, which gives unit
    vectors when ‖μ_⊥‖ < 1). Returns the two new vectors (D,), (D,); E is not changed.
    """
    if variant not in ("sequence_models", "paper"):
        raise ValueError(
            f"variant must be 'sequence_models' or 'paper', got {variant!r}"
        )
    a, b = _pair_vectors(E, vocab, [pair])  # (1, D) each
    e1, e2 = a[0], b[0]  # (D,) each
    norm2 = _check_g(g, E.size(1))
    mu = (e1 + e2) / 2  # (D,)
    mu_B = (mu @ g / norm2) * g  # (D,)
    mu_orth = mu - mu_B  # (D,)
    e1_B, e2_B = (e1 @ g / norm2) * g, (e2 @ g / norm2) * g  # (D,) each
    scale = (1 - (mu_orth * mu_orth).sum()).abs().sqrt()
    if variant == "paper":
        d1, d2 = (e1_B - mu_B).norm(), (e2_B - mu_B).norm()
    else:
        d1, d2 = (e1 - mu_orth - mu_B).norm(), (e2 - mu_orth - mu_B).norm()
    if float(d1) == 0 or float(d2) == 0:
        raise ValueError(
            f"{pair[0]!r} and {pair[1]!r} do not differ along g: cannot equalize"
        )
    return mu_orth + scale * (e1_B - mu_B) / d1, mu_orth + scale * (e2_B - mu_B) / d2


def projections(
    E: Tensor, vocab: Any, words: Sequence[str], g: Tensor, *, cosine: bool = False
) -> Tensor:
    r"""Each word's component along g, e·g/‖g‖ (or cos(e, g)), for a before/after plot. Chapter 2.

    Missing words raise ``OutOfVocabularyError`` naming them. Returns (n,).
    """
    _check_matrix(E)
    _check_g(g, E.size(1))
    ids = _lookup(vocab, list(words), E.size(0))
    rows = E[ids]  # (n, D)
    if cosine:
        rows = _unit_rows(rows)  # (n, D)
    return rows @ (g / g.norm())  # (n,)


def debias(
    E: Tensor,
    vocab: Any,
    g: Tensor,
    neutral_words: Sequence[str],
    equalize_pairs: Sequence[Pair] = (),
    *,
    normalize: bool = True,
    variant: str = "sequence_models",
) -> Tensor:
    r"""Hard debiasing: neutralize the neutral words, equalize the pairs; a new E. Chapter 2.

    ``normalize`` first scales every row to unit length (the paper's setting). Returns a new
    (V, D) tensor; E is not changed. Missing words raise ``OutOfVocabularyError``.
    """
    _check_matrix(E)
    out = _unit_rows(E) if normalize else E.clone()  # (V, D)
    ids = _lookup(vocab, list(neutral_words), E.size(0))
    out[ids] = neutralize(out[ids], g)  # (n, D)
    for pair in equalize_pairs:
        new1, new2 = equalize(pair, g, out, vocab, variant=variant)
        out[int(vocab[pair[0]])], out[int(vocab[pair[1]])] = new1, new2
    return out
