import numpy as np
import pytest
import torch

from course_lib.embeddings import (
    clip_counts,
    cooccurrence_matrix,
    explained_variance,
    log_counts,
    ppmi,
    truncated_svd,
)

# The lecture's corpus: "I like deep learning." / "I like NLP." / "I enjoy flying."
WORDS = ["I", "like", "enjoy", "deep", "learning", "NLP", "flying", "."]
ID = {w: i for i, w in enumerate(WORDS)}
CORPUS = [
    [ID[w] for w in s.split()]
    for s in ["I like deep learning .", "I like NLP .", "I enjoy flying ."]
]
# fmt: off
LECTURE_X = [  # window 1, symmetric; rows and columns in the order of WORDS
    # I like enjoy deep learning NLP flying .
    [0, 2, 1, 0, 0, 0, 0, 0],  # I
    [2, 0, 0, 1, 0, 1, 0, 0],  # like
    [1, 0, 0, 0, 0, 0, 1, 0],  # enjoy
    [0, 1, 0, 0, 1, 0, 0, 0],  # deep
    [0, 0, 0, 1, 0, 0, 0, 1],  # learning
    [0, 1, 0, 0, 0, 0, 0, 1],  # NLP
    [0, 0, 1, 0, 0, 0, 0, 1],  # flying
    [0, 0, 0, 0, 1, 1, 1, 0],  # .
]
# fmt: on


def naive_counts(sentences, V, window, symmetric=True, weighting="flat"):
    X = np.zeros((V, V))
    for s in sentences:
        for i in range(len(s)):
            for j in range(i + 1, min(len(s), i + window + 1)):
                d = j - i
                w = {"flat": 1.0, "harmonic": 1.0 / d, "ramped": window + 1.0 - d}[
                    weighting
                ]
                if s[i] < 0 or s[j] < 0:  # a dropped word
                    continue
                X[s[i], s[j]] += w
                if symmetric:
                    X[s[j], s[i]] += w
    return X


def test_lecture_example_window_1():
    X = cooccurrence_matrix(CORPUS, len(WORDS), 1)
    assert X.shape == (8, 8) and X.dtype == torch.float32
    assert torch.equal(X, torch.tensor(LECTURE_X, dtype=torch.float32))
    right = cooccurrence_matrix(CORPUS, len(WORDS), 1, symmetric=False)
    assert right[ID["I"], ID["like"]] == 2 and right[ID["like"], ID["I"]] == 0
    assert torch.equal(right + right.T, X)


@pytest.mark.parametrize("window", [1, 2, 5])
@pytest.mark.parametrize("symmetric", [True, False])
@pytest.mark.parametrize("weighting", ["flat", "harmonic", "ramped"])
def test_matches_naive_double_loop(window, symmetric, weighting):
    g = torch.Generator().manual_seed(window)
    lengths = torch.randint(0, 9, (12,), generator=g).tolist()
    sents = [torch.randint(0, 7, (n,), generator=g).tolist() for n in lengths]
    X = cooccurrence_matrix(
        sents, 7, window, symmetric=symmetric, weighting=weighting, dtype=torch.float64
    )
    np.testing.assert_allclose(
        X.numpy(), naive_counts(sents, 7, window, symmetric, weighting)
    )
    sparse = cooccurrence_matrix(
        sents,
        7,
        window,
        symmetric=symmetric,
        weighting=weighting,
        sparse=True,
        dtype=torch.float64,
    )
    assert sparse.is_sparse
    torch.testing.assert_close(sparse.to_dense(), X)


def test_tensor_inputs_and_out_of_vocabulary_ids():
    sents = [[0, 1, 9, 2], [3, 1]]
    # ids >= vocab_size are dropped but keep their place: 1 and 2 stay 2 apart (-1 = dropped)
    X = cooccurrence_matrix(sents, 4, 2)
    np.testing.assert_allclose(X.numpy(), naive_counts([[0, 1, -1, 2], [3, 1]], 4, 2))
    assert X[1, 2] == 1 and X[0, 2] == 0
    with_unk = cooccurrence_matrix(sents, 4, 2, unk_id=3)
    np.testing.assert_allclose(
        with_unk.numpy(), naive_counts([[0, 1, 3, 2], [3, 1]], 4, 2)
    )
    ignored = cooccurrence_matrix([[0, 1, 3, 2], [2, 1]], 4, 2, ignore_index=3)
    np.testing.assert_allclose(
        ignored.numpy(), naive_counts([[0, 1, -1, 2], [2, 1]], 4, 2)
    )
    padded = torch.tensor([[0, 1, 9, 2], [3, 1, 8, 8]])  # rows = sentences, 8 = padding
    torch.testing.assert_close(cooccurrence_matrix(padded, 4, 2), X)
    as_tensors = [torch.tensor(s) for s in sents]
    torch.testing.assert_close(cooccurrence_matrix(as_tensors, 4, 2), X)
    one_sentence = cooccurrence_matrix(torch.tensor([0, 1, 2]), 3, 1)
    assert one_sentence.sum() == 4


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(window=0), "window must be an int >= 1"),
        (dict(sentences=[]), "empty corpus"),
        (dict(sentences=[[], []]), "empty corpus"),
        (dict(sentences=[[0, -2]]), "must be >= 0"),
        (dict(weighting="gaussian"), "weighting"),
        (dict(vocab_size=0), "vocab_size"),
        (dict(unk_id=8), "unk_id"),
    ],
)
def test_bad_input(kwargs, message):
    args = dict(sentences=CORPUS, vocab_size=8, window=1) | kwargs
    with pytest.raises(ValueError, match=message):
        cooccurrence_matrix(**args)


def test_words_instead_of_ids_rejected():
    with pytest.raises(TypeError, match="token ids"):
        cooccurrence_matrix([["I", "like"]], 8, 1)


def numpy_ppmi(X, alpha=1.0):
    p_wc = X / X.sum()
    p_w = X.sum(1, keepdims=True) / X.sum()
    c = X.sum(0, keepdims=True) ** alpha
    p_c = c / c.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        pmi = np.log(p_wc / (p_w * p_c))
    return np.where(X > 0, np.maximum(pmi, 0), 0.0)


@pytest.mark.parametrize("alpha", [1.0, 0.75])
def test_ppmi_against_numpy(alpha):
    rng = np.random.default_rng(0)
    X = rng.poisson(1.0, (9, 7)).astype(float)
    X[3] = 0  # a word never seen: its row must be 0, not nan
    out = ppmi(torch.tensor(X), alpha=alpha)
    np.testing.assert_allclose(out.numpy(), numpy_ppmi(X, alpha), atol=1e-12)
    assert (out >= 0).all() and not out.isnan().any()
    sparse = ppmi(torch.tensor(X).to_sparse(), alpha=alpha)
    np.testing.assert_allclose(
        sparse.to_dense().numpy(), numpy_ppmi(X, alpha), atol=1e-12
    )


def test_count_transforms():
    X = torch.tensor([[0.0, 5.0], [250.0, 1.0]])
    assert torch.equal(clip_counts(X, 100), torch.tensor([[0.0, 5.0], [100.0, 1.0]]))
    assert torch.equal(clip_counts(X.to_sparse(), 100).to_dense(), clip_counts(X, 100))
    torch.testing.assert_close(log_counts(X), torch.log(1 + X))
    with pytest.raises(ValueError, match="non-negative"):
        ppmi(-X)
    with pytest.raises(ValueError, match="2-D"):
        log_counts(torch.ones(3))


def test_svd_reconstruction_and_numpy_parity():
    X = torch.tensor(LECTURE_X, dtype=torch.float64) + torch.eye(8) * 0.5
    vectors, S = truncated_svd(X, 8)
    U, S_np, Vt = np.linalg.svd(X.numpy())
    np.testing.assert_allclose(S.numpy(), S_np, atol=1e-12)
    # U_k S_k V_kᵀ with all k gives X back; V_k up to the same signs as U_k
    signs = np.sign((vectors.numpy() * U).sum(0))
    np.testing.assert_allclose(vectors.numpy(), U * S_np * signs, atol=1e-10)
    np.testing.assert_allclose(
        vectors.numpy() @ (Vt * signs[:, None]), X.numpy(), atol=1e-10
    )
    top2, _ = truncated_svd(X, 2)
    np.testing.assert_allclose(
        np.abs(top2.numpy()), np.abs(U[:, :2] * S_np[:2]), atol=1e-10
    )
    sqrt_vectors, _ = truncated_svd(X, 2, power=0.5)
    np.testing.assert_allclose(
        np.abs(sqrt_vectors.numpy()), np.abs(U[:, :2] * S_np[:2] ** 0.5)
    )


def test_lowrank_svd_is_seeded_and_close():
    g = torch.Generator().manual_seed(0)
    X = torch.randn(60, 5, generator=g, dtype=torch.float64) @ torch.randn(
        5, 40, generator=g, dtype=torch.float64
    )
    state = torch.get_rng_state()
    a, S_a = truncated_svd(X, 3, method="lowrank", seed=1)
    b, _ = truncated_svd(X.to_sparse(), 3, method="lowrank", seed=1)
    assert torch.equal(
        torch.get_rng_state(), state
    )  # the global generator is untouched
    full, S = truncated_svd(X, 3)
    torch.testing.assert_close(a, full)
    torch.testing.assert_close(b, full)
    assert S_a.shape == (3,)
    ratio = explained_variance(S)
    torch.testing.assert_close(ratio.sum(), torch.tensor(1.0, dtype=torch.float64))
    assert ratio[:5].sum() > 1 - 1e-12  # rank 5
    torch.testing.assert_close(explained_variance(S_a, total=(X**2).sum()), ratio[:3])
    with pytest.raises(ValueError, match="k must be"):
        truncated_svd(X, 41)
    with pytest.raises(ValueError, match="method"):
        truncated_svd(X, 2, method="qr")
