"""GloVe: weighting, loss and gradients, training, co-occurrence ratios (Chapter 2)."""

import math

import pytest
import torch

from course_lib.embeddings import OutOfVocabularyError, cooccurrence_matrix
from course_lib.embeddings.glove import (
    GloVe,
    cooccurrence_ratios,
    glove_loss,
    glove_loss_and_gradient,
    glove_weight,
    train_glove,
)


def test_glove_weight_values():
    x = torch.tensor([0.0, 1.0, 10.0, 50.0, 100.0, 250.0])
    f = glove_weight(x)
    want = [0.0, 0.01**0.75, 0.1**0.75, 0.5**0.75, 1.0, 1.0]
    torch.testing.assert_close(f, torch.tensor(want), rtol=1e-6, atol=0)
    assert (f.diff() >= 0).all()
    torch.testing.assert_close(
        glove_weight(torch.tensor([5.0]), x_max=10, alpha=1.0), torch.tensor([0.5])
    )
    with pytest.raises(ValueError, match="x_max and alpha must be > 0"):
        glove_weight(x, x_max=0)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_glove_gradients_match_autograd(reduction):
    g = torch.Generator().manual_seed(0)

    def leaf(*shape):
        return torch.randn(*shape, generator=g, dtype=torch.float64, requires_grad=True)

    w_i, w_j, b_i, b_j = leaf(9, 4), leaf(9, 4), leaf(9), leaf(9)
    x = torch.tensor([0.5, 1, 2, 3, 50, 99, 100, 101, 1000], dtype=torch.float64)
    loss, g_wi, g_wj, g_bi, g_bj = glove_loss_and_gradient(
        w_i, w_j, b_i, b_j, x, reduction=reduction
    )
    ref = glove_loss(w_i, w_j, b_i, b_j, x, reduction=reduction)
    e = (w_i * w_j).sum(1) + b_i + b_j - x.log()
    direct = torch.minimum(torch.ones(9, dtype=torch.float64), (x / 100) ** 0.75) * e**2
    want = {"mean": direct.mean(), "sum": direct.sum()}.get(reduction, direct)
    torch.testing.assert_close(ref, want, rtol=0, atol=1e-10)
    torch.testing.assert_close(loss, ref.detach(), rtol=0, atol=1e-10)
    ref.sum().backward()
    for mine, auto in (
        (g_wi, w_i.grad),
        (g_wj, w_j.grad),
        (g_bi, b_i.grad),
        (g_bj, b_j.grad),
    ):
        torch.testing.assert_close(mine, auto, rtol=0, atol=1e-8)


def test_glove_model_vectors_and_bad_entries():
    model = GloVe(6, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    assert model.W.abs().max() <= 0.5 / 3 and model.b.shape == (6,)
    i, j, x = (
        torch.tensor([0, 1]),
        torch.tensor([2, 3]),
        torch.tensor([4.0, 5.0]).double(),
    )
    want = glove_loss(model.W[i], model.W_tilde[j], model.b[i], model.b_tilde[j], x)
    torch.testing.assert_close(model(i, j, x), want)
    torch.testing.assert_close(model.vectors("sum"), (model.W + model.W_tilde).detach())
    torch.testing.assert_close(model.vectors("mean"), model.vectors("sum") / 2)
    torch.testing.assert_close(model.vectors("context"), model.W_tilde.detach())
    with pytest.raises(ValueError, match="kind"):
        model.vectors("both")
    with pytest.raises(ValueError, match="non-zero counts"):
        glove_loss(
            torch.zeros(1, 3),
            torch.zeros(1, 3),
            torch.zeros(1),
            torch.zeros(1),
            torch.zeros(1),
        )
    with pytest.raises(ValueError, match=r"x must be \(B,\) = \(2,\)"):
        glove_loss(
            torch.zeros(2, 3),
            torch.zeros(2, 3),
            torch.zeros(2),
            torch.zeros(2),
            torch.ones(3),
        )


CORPUS = [
    [0, 1, 2, 3],
    [0, 1, 2],
    [4, 5, 6, 7],
    [4, 5, 7],
    [0, 2, 1, 3],
    [6, 5, 4],
] * 10


def test_train_glove_fits_log_counts_and_is_seeded():
    X = cooccurrence_matrix(CORPUS, 8, 2, weighting="harmonic", sparse=True)
    run = train_glove(X, dim=4, epochs=40, lr=0.1, batch_size=8, progress=False)
    again = train_glove(X, dim=4, epochs=40, lr=0.1, batch_size=8, progress=False)
    assert torch.equal(run.model.W, again.model.W)
    assert run.entries == X.coalesce().values().numel()
    assert run.loss[-1] < run.loss[0] / 5 and len(run.seconds) == 40
    dense = train_glove(X.to_dense(), dim=4, epochs=2, progress=False)
    assert dense.entries == run.entries
    # the fit: w_iᵀw̃_j + b_i + b̃_j ≈ log X_ij on the non-zero entries
    m = run.model
    (i, j), x = X.coalesce().indices(), X.coalesce().values()
    fit = (m.W[i] * m.W_tilde[j]).sum(1) + m.b[i] + m.b_tilde[j]
    assert torch.corrcoef(torch.stack([fit, x.log()]))[0, 1] > 0.9
    with pytest.raises(ValueError, match="no positive entry"):
        train_glove(torch.zeros(3, 3), progress=False)
    with pytest.raises(ValueError, match="square"):
        train_glove(torch.ones(3, 4), progress=False)


def test_cooccurrence_ratios_from_counts_and_missing_words():
    vocab = {"ice": 0, "steam": 1, "solid": 2, "gas": 3, "water": 4, "fashion": 5}
    X = torch.zeros(6, 6)
    X[0, 2], X[0, 3], X[0, 4], X[0, 1] = 8, 1, 6, 5  # ice: 20 in all
    X[1, 2], X[1, 3], X[1, 4], X[1, 0] = 1, 9, 5, 5  # steam: 20 in all
    X[0, 5] = 0
    table = cooccurrence_ratios(X, vocab)
    assert table["context"] == ["solid", "gas", "water", "fashion"]
    assert table["P(k|ice)"][0] == pytest.approx(8 / 20)
    assert table["P(k|steam)"][1] == pytest.approx(9 / 20)
    assert table["P(k|ice)/P(k|steam)"][:3] == pytest.approx([8.0, 1 / 9, 6 / 5])
    assert math.isnan(table["P(k|ice)/P(k|steam)"][3])  # 0 / 0
    sparse = cooccurrence_ratios(X.to_sparse(), vocab, contexts=("solid",))
    assert sparse["P(k|ice)"] == pytest.approx([0.4])
    with pytest.raises(OutOfVocabularyError, match="'vapour'.*'plasma'"):
        cooccurrence_ratios(
            X, vocab, probes=("ice", "vapour"), contexts=("gas", "plasma")
        )
    with pytest.raises(ValueError, match="two words"):
        cooccurrence_ratios(X, vocab, probes=("ice",))
