"""Debiasing: bias direction, neutralize, equalize, projections (Chapter 2)."""

import pytest
import torch

from course_lib.embeddings import OutOfVocabularyError
from course_lib.embeddings.debias import (
    bias_direction,
    debias,
    definitional_pca,
    equalize,
    neutralize,
    projections,
)

WORDS = [
    "she",
    "he",
    "woman",
    "man",
    "her",
    "his",
    "nurse",
    "doctor",
    "actress",
    "actor",
]
VOCAB = {w: i for i, w in enumerate(WORDS)}


def _embeddings(seed=0, D=6):
    """Unit vectors whose first axis carries a planted 'gender' component."""
    g = torch.Generator().manual_seed(seed)
    E = torch.randn(len(WORDS), D, generator=g, dtype=torch.float64)
    side = torch.tensor([1, -1, 1, -1, 1, -1, 0.4, -0.3, 1, -1], dtype=torch.float64)
    E[:, 0] = 0.1 * E[:, 0] + 2 * side
    return E / E.norm(dim=1, keepdim=True)


PAIRS = [("she", "he"), ("woman", "man"), ("her", "his")]


def test_bias_direction_finds_the_planted_axis_and_points_to_the_first_words():
    E = _embeddings()
    for method in ("pca", "mean"):
        g = bias_direction(E, VOCAB, PAIRS, method=method)
        assert g.shape == (6,) and float(g.norm()) == pytest.approx(1.0)
        assert g[0] > 0.9  # towards "she", "woman", "her"
    components, share = definitional_pca(E, VOCAB, PAIRS)
    assert share[0] > 0.5 > share[1] and float(share.sum()) == pytest.approx(1.0)
    # the 2P = 6 centred rows come in ± pairs: P = 3 directions, the rest of the spectrum 0
    assert components.shape == (3, 6) and share.shape == (3,)
    half = torch.stack([E[VOCAB[a]] - E[VOCAB[b]] for a, b in PAIRS]) / 2  # (3, 6)
    spectrum = torch.linalg.svdvals(torch.cat([half, -half]))  # (6,)
    assert float(spectrum[3:].max()) < 1e-5 * float(spectrum[0])
    torch.testing.assert_close(
        components[0].abs(), bias_direction(E, VOCAB, PAIRS).abs()
    )
    with pytest.raises(ValueError, match="method"):
        bias_direction(E, VOCAB, PAIRS, method="svd")
    with pytest.raises(OutOfVocabularyError, match="'girl'.*'boy'"):
        bias_direction(E, VOCAB, [("girl", "boy"), ("she", "he")])


def test_neutralize_leaves_nothing_along_g():
    E = _embeddings()
    g = bias_direction(E, VOCAB, PAIRS)
    for scale in (1.0, 3.0):  # g need not be a unit vector
        e = neutralize(E[VOCAB["nurse"]], scale * g)
        assert abs(float(e @ g)) < 1e-12
    many = neutralize(E, g)
    assert many.shape == E.shape and (many @ g).abs().max() < 1e-12
    # only the g component changed
    torch.testing.assert_close(E - many, (E @ g)[:, None] * g[None])
    with pytest.raises(ValueError, match="zero vector"):
        neutralize(E, torch.zeros(6, dtype=torch.float64))


@pytest.mark.parametrize("variant", ["sequence_models", "paper"])
def test_equalize_makes_the_pair_symmetric(variant):
    E = _embeddings(seed=1)
    g = bias_direction(E, VOCAB, PAIRS)
    e1, e2 = equalize(("actress", "actor"), g, E, VOCAB, variant=variant)
    p1, p2 = float(e1 @ g), float(e2 @ g)
    assert p1 == pytest.approx(-p2, abs=1e-12) and p1 > 0
    assert float(e1.norm()) == pytest.approx(float(e2.norm()), abs=1e-12)
    # they differ only along g, and keep the pair's g-free mean
    torch.testing.assert_close(neutralize(e1, g), neutralize(e2, g))
    mu = (E[VOCAB["actress"]] + E[VOCAB["actor"]]) / 2
    torch.testing.assert_close(neutralize(e1, g), neutralize(mu, g))
    if variant == "paper":
        assert float(e1.norm()) == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(OutOfVocabularyError, match="'waiter'"):
        equalize(("waitress", "waiter"), g, E, {**VOCAB, "waitress": 0})
    with pytest.raises(ValueError, match="variant"):
        equalize(("actress", "actor"), g, E, VOCAB, variant="bolukbasi")


def test_projections_and_debias_before_after():
    E = _embeddings()
    g = bias_direction(E, VOCAB, PAIRS)
    before = projections(E, VOCAB, ["nurse", "doctor"], g)
    assert before.shape == (2,) and before[0] > 0 > before[1]
    cos = projections(E * 3, VOCAB, ["nurse"], g, cosine=True)
    torch.testing.assert_close(cos, before[:1])  # rows are unit vectors
    E_before = E.clone()
    new = debias(E, VOCAB, g, ["nurse", "doctor"], [("actress", "actor")])
    assert torch.equal(E, E_before)  # a new matrix; E is unchanged
    after = projections(new, VOCAB, ["nurse", "doctor", "actress", "actor"], g)
    assert after[:2].abs().max() < 1e-12
    assert float(after[2]) == pytest.approx(-float(after[3]), abs=1e-12)
    torch.testing.assert_close(new[VOCAB["she"]], E[VOCAB["she"]])  # untouched rows
    with pytest.raises(OutOfVocabularyError, match="'engineer'"):
        projections(E, VOCAB, ["nurse", "engineer"], g)
    with pytest.raises(OutOfVocabularyError, match="'engineer'"):
        debias(E, VOCAB, g, ["engineer"])
    with pytest.raises(ValueError, match=r"g must be a vector \(D,\) = \(6,\)"):
        projections(E, VOCAB, ["nurse"], g[:3])
