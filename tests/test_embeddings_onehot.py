import pytest
import torch
import torch.nn.functional as F

from course_lib.embeddings import embedding_lookup, one_hot, one_hot_similarity


def test_one_hot_matches_torch():
    ids = torch.tensor([[0, 3, 2], [4, 4, 1]])
    out = one_hot(ids, 5)
    assert out.shape == (2, 3, 5) and out.dtype == torch.float32
    assert torch.equal(out, F.one_hot(ids, 5).float())
    assert torch.equal(
        one_hot([1, 0], 3, dtype=torch.float64), torch.eye(3)[[1, 0]].double()
    )
    assert torch.equal(one_hot(2, 4), torch.tensor([0.0, 0, 1, 0]))


def test_distinct_one_hots_are_orthogonal():
    sims = one_hot_similarity([0, 1, 2, 5, 1], 7)
    same = (
        torch.tensor([0, 1, 2, 5, 1])[:, None] == torch.tensor([0, 1, 2, 5, 1])[None, :]
    )
    assert torch.equal(sims, same.float())  # 1 for the same word, 0 otherwise


def test_embedding_lookup_is_one_hot_times_matrix():
    torch.manual_seed(0)
    emb = torch.nn.Embedding(6, 4).double()
    ids = torch.tensor([[5, 0], [2, 2]])
    E = emb.weight.detach()
    by_matmul = embedding_lookup(E, ids)
    assert by_matmul.shape == (2, 2, 4)
    torch.testing.assert_close(by_matmul, emb(ids).detach(), rtol=0, atol=1e-15)
    assert torch.equal(embedding_lookup(E, ids, method="index"), E[ids])


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: one_hot([0, 5], 5), r"\[0, vocab_size = 5\)"),
        (lambda: one_hot([-1], 5), r"got \[-1, -1\]"),
        (lambda: one_hot([0], 0), "vocab_size must be"),
        (lambda: embedding_lookup(torch.zeros(3), [0]), r"\(V, D\), got \(3,\)"),
        (lambda: embedding_lookup(torch.zeros(3, 2), [0], method="gather"), "method"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_float_ids_rejected():
    with pytest.raises(TypeError, match="integers"):
        one_hot(torch.tensor([0.0, 1.0]), 3)
