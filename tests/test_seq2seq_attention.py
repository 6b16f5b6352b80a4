"""Attention scores, masked softmax, and Nadaraya-Watson pooling."""

from __future__ import annotations

import pytest
import torch

from course_lib.seq2seq.attention import (
    AdditiveScore,
    DotProductScore,
    LowRankMultiplicativeScore,
    MultiplicativeScore,
    attend,
    make_scorer,
    masked_softmax,
)
from course_lib.seq2seq.pooling import (
    average_pooling,
    kernel_regression_data,
    nadaraya_watson,
    train_kernel_width,
)

B, S, DQ, DK = 3, 5, 4, 6


def _inputs(dq=DQ, dk=DK):
    g = torch.Generator().manual_seed(0)
    q = torch.randn(B, dq, generator=g, dtype=torch.float64)
    k = torch.randn(B, S, dk, generator=g, dtype=torch.float64)
    lens = torch.tensor([5, 3, 1])
    mask = torch.arange(S)[None, :] < lens[:, None]
    return q, k, mask


def test_masked_softmax_sums_to_one_on_real_positions_and_zero_on_padding():
    q, k, mask = _inputs()
    scores = torch.randn(B, S, dtype=torch.float64)
    w = masked_softmax(scores, mask)
    torch.testing.assert_close(w.sum(-1), torch.ones(B, dtype=torch.float64))
    assert (w[~mask] == 0).all()
    for b in range(B):  # equals the plain softmax over the real positions only
        n = int(mask[b].sum())
        torch.testing.assert_close(w[b, :n], scores[b, :n].softmax(-1))


@pytest.mark.parametrize("kind", ["multiplicative", "low_rank", "additive"])
def test_every_scorer_attends_over_real_positions_only(kind):
    q, k, mask = _inputs()
    scorer = make_scorer(kind, DQ, DK, d_attn=3).double()
    context, w = attend(scorer, q, k, mask)
    assert context.shape == (B, DK) and w.shape == (B, S)
    torch.testing.assert_close(w.sum(-1), torch.ones(B, dtype=torch.float64))
    assert (w[~mask] == 0).all()
    torch.testing.assert_close(context, torch.einsum("bs,bsd->bd", w, k))
    # padding values cannot leak into the context
    k2 = k.clone()
    k2[~mask] = 1e6
    torch.testing.assert_close(attend(scorer, q, k2, mask)[0], context)


def test_scores_equal_their_equations():
    q, k, mask = _inputs(DK, DK)
    dot = DotProductScore(DK, DK)
    torch.testing.assert_close(
        dot(q, dot.project_keys(k)), torch.einsum("bd,bsd->bs", q, k)
    )
    q, k, _ = _inputs()
    mult = MultiplicativeScore(DQ, DK).double()
    W = mult.W.weight  # (DQ, DK)
    torch.testing.assert_close(
        mult(q, mult.project_keys(k)), torch.einsum("bq,qk,bsk->bs", q, W, k)
    )
    low = LowRankMultiplicativeScore(DQ, DK, rank=2).double()
    W = low.full_matrix()
    assert torch.linalg.matrix_rank(W) == 2
    torch.testing.assert_close(
        low(q, low.project_keys(k)), torch.einsum("bq,qk,bsk->bs", q, W, k)
    )
    add = AdditiveScore(DQ, DK, 7).double()
    want = torch.stack(
        [
            torch.stack(
                [
                    add.v.weight[0]
                    @ torch.tanh(add.W1.weight @ k[b, i] + add.W2.weight @ q[b])
                    for i in range(S)
                ]
            )
            for b in range(B)
        ]
    )
    torch.testing.assert_close(add(q, add.project_keys(k)), want)


def test_low_rank_parameter_count_against_the_full_matrix():
    d, k = 512, 32
    full = sum(p.numel() for p in MultiplicativeScore(d, d).parameters())
    low = sum(p.numel() for p in LowRankMultiplicativeScore(d, d, k).parameters())
    assert (full, low) == (d * d, 2 * k * d)


def test_bad_input():
    q, k, mask = _inputs()
    with pytest.raises(ValueError, match="d_query == d_key"):
        DotProductScore(4, 6)
    with pytest.raises(ValueError, match="at least one real position"):
        masked_softmax(
            torch.zeros(2, 3), torch.tensor([[True, False, False], [False] * 3])
        )
    with pytest.raises(TypeError, match="bool"):
        masked_softmax(torch.zeros(2, 3), torch.ones(2, 3))
    with pytest.raises(ValueError, match="attention must be one of"):
        make_scorer("cosine", 3, 3)
    with pytest.raises(ValueError, match="rank must be"):
        LowRankMultiplicativeScore(3, 3, 0)
    with pytest.raises(ValueError, match=r"mask must be \(B, S\)"):
        attend(make_scorer("additive", DQ, DK).double(), q, k, mask[:, :2])


# -- Nadaraya-Watson ---------------------------------------------------------------------
def test_pooling_weights_and_the_learned_width():
    x, y, xq, yq = kernel_regression_data(50, 40, seed=0)
    pred, w = average_pooling(y, 40)
    torch.testing.assert_close(pred, torch.full((40,), float(y.mean())))
    pred_nw, w_nw = nadaraya_watson(xq, x, y)
    torch.testing.assert_close(w_nw.sum(-1), torch.ones(40))
    want = torch.softmax(-0.5 * (xq[:, None] - x[None]) ** 2, -1) @ y
    torch.testing.assert_close(pred_nw, want)
    model, losses = train_kernel_width(x, y, epochs=20, lr=1.0)
    assert (
        losses[-1] < losses[0] and float(model.w.detach()) > 1.0
    )  # a narrower kernel fits better
    err = lambda p: float(((p - yq) ** 2).mean())  # noqa: E731
    assert err(model(xq, x, y)[0].detach()) < err(pred_nw) < err(pred)


@pytest.mark.parametrize("kind", ["dot", "multiplicative", "low_rank", "additive"])
def test_scorers_take_a_device(kind):
    scorer = make_scorer(kind, DK, DK, d_attn=3, device="meta")
    assert all(p.device.type == "meta" for p in scorer.parameters())
    q, k = torch.randn(B, DK, device="meta"), torch.randn(B, S, DK, device="meta")
    assert scorer(q, scorer.project_keys(k)).shape == (B, S)
