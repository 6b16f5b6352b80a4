"""attention_cost: the reads it times are Seq2Seq's, and the memory grows as T_x · T_y."""

from __future__ import annotations

import pytest
import torch

from course_lib.seq2seq import make_scorer
from course_lib.seq2seq.attention_cost import _attention_reads, attention_cost


@pytest.mark.parametrize("kind", ["dot", "multiplicative", "low_rank", "additive"])
def test_reads_equal_the_batched_softmax_attention(kind):
    torch.manual_seed(0)
    scorer = make_scorer(kind, 6, 6, d_attn=3).double()
    q = torch.randn(2, 4, 6, dtype=torch.float64)  # (B, T_y, Dq)
    k = torch.randn(2, 5, 6, dtype=torch.float64)  # (B, T_x, Dk)
    mask = torch.ones(2, 5, dtype=torch.bool)
    got = _attention_reads(scorer, q, k, mask)  # (B, T_y, Dk)
    if kind == "dot":
        scores = q @ k.transpose(1, 2)  # (B, T_y, T_x)
    elif kind == "multiplicative":
        scores = q @ (k @ scorer.W.weight.T).transpose(1, 2)
    elif kind == "low_rank":
        scores = q @ scorer.full_matrix() @ k.transpose(1, 2)
    else:
        hidden = torch.tanh(scorer.W1(k)[:, None] + scorer.W2(q)[:, :, None])
        scores = scorer.v(hidden).squeeze(-1)  # (B, T_y, T_x)
    want = torch.nn.functional.softmax(scores, -1) @ k
    torch.testing.assert_close(got, want)


@pytest.mark.parametrize("kind", ["dot", "additive"])
def test_saved_memory_is_bilinear_in_the_lengths(kind):
    """bytes = a + b T_x + c T_y + d T_x T_y: the mixed difference is the same everywhere."""
    scorer = make_scorer(kind, 8, 8, d_attn=4)

    def mem(tx, ty):
        return attention_cost(scorer, 8, 8, tx, ty, batch=2, repeats=1).saved_bytes

    d1 = mem(10, 6) - mem(10, 3) - mem(5, 6) + mem(5, 3)
    d2 = mem(20, 12) - mem(20, 6) - mem(10, 12) + mem(10, 6)
    assert d1 > 0 and d2 == 4 * d1  # the T_x T_y term: 4 times the cells
    # at least the weights, B·T_x·T_y float32 (the additive score keeps its tanh too)
    assert d1 >= 2 * 5 * 3 * 4 * (5 if kind == "additive" else 1)


def test_bad_lengths_are_rejected():
    scorer = make_scorer("dot", 4, 4)
    cost = attention_cost(scorer, 4, 4, 3, 2, batch=1, repeats=1)
    assert (cost.T_x, cost.T_y) == (3, 2) and cost.seconds > 0
    with pytest.raises(ValueError, match="T_x must be a positive int"):
        attention_cost(scorer, 4, 4, 0, 2)
    with pytest.raises(ValueError, match="repeats must be a positive int"):
        attention_cost(scorer, 4, 4, 3, 2, repeats=0)
