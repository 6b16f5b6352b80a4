import copy

import pytest
import torch
import torch.nn.functional as F

from course_lib.embeddings import (
    CBOW,
    SkipGram,
    batches,
    hand_sgd_step,
    naive_softmax_loss,
    naive_softmax_loss_and_gradient,
    skipgram_pairs,
    train_word2vec,
    word_windows,
)

CORPUS = [[0, 1, 2, 3, 7], [0, 1, 5, 7], [0, 4, 6, 7]]  # "I like deep learning ." ...


def test_skipgram_pairs_by_hand():
    pairs = skipgram_pairs([[10, 11, 12], [13], [14, 15]], 1)
    assert pairs.dtype == torch.long
    expected = [[10, 11], [11, 10], [11, 12], [12, 11], [14, 15], [15, 14]]
    assert pairs.tolist() == expected
    two = skipgram_pairs([[1, 2, 3]], 2)
    assert two.tolist() == [[1, 2], [1, 3], [2, 1], [2, 3], [3, 1], [3, 2]]


def test_skipgram_pairs_match_naive_loop():
    g = torch.Generator().manual_seed(0)
    sents = [torch.randint(0, 9, (int(n),), generator=g).tolist() for n in range(7)]
    for window in (1, 3):
        naive = [
            [s[i], s[j]]
            for s in sents
            for i in range(len(s))
            for j in range(max(0, i - window), min(len(s), i + window + 1))
            if j != i
        ]
        assert skipgram_pairs(sents, window).tolist() == naive


def test_skipgram_pairs_drop_out_of_vocabulary():
    pairs = skipgram_pairs(
        [[0, 9, 1]], 2, vocab_size=5
    )  # 9 dropped, 0 and 1 still 2 apart
    assert pairs.tolist() == [[0, 1], [1, 0]]
    pairs = skipgram_pairs([[0, 9, 1]], 1, vocab_size=5, unk_id=4)
    assert pairs.tolist() == [[0, 4], [4, 0], [4, 1], [1, 4]]


def test_word_windows_by_hand():
    contexts, mask, centres = word_windows([[10, 11, 12], [13]], 1, pad_id=-1)
    assert centres.tolist() == [10, 11, 12]  # 13 has no context
    assert contexts.tolist() == [[-1, 11], [10, 12], [11, -1]]
    assert mask.tolist() == [[False, True], [True, True], [True, False]]
    contexts, mask, centres = word_windows(CORPUS, 2)
    assert contexts.shape == (13, 4) and mask.dtype == torch.bool
    assert (contexts[~mask] == 0).all()


@pytest.mark.parametrize("make", [skipgram_pairs, word_windows])
def test_bad_corpus_and_window(make):
    with pytest.raises(ValueError, match=r"window must be an int >= 1.*got 0"):
        make(CORPUS, 0)
    with pytest.raises(ValueError, match="window"):
        make(CORPUS, 1.5)
    with pytest.raises(ValueError, match="empty corpus"):
        make([], 2)
    with pytest.raises(ValueError, match="no sentence has 2 kept words"):
        make([[1], [2]], 2)


@pytest.mark.parametrize("B, V, D", [(1, 3, 2), (7, 11, 5), (16, 40, 8)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_naive_softmax_gradients_match_autograd(B, V, D, reduction):
    g = torch.Generator().manual_seed(B * V)
    v_c = torch.randn(B, D, generator=g, dtype=torch.float64, requires_grad=True)
    U = torch.randn(V, D, generator=g, dtype=torch.float64, requires_grad=True)
    o = torch.randint(0, V, (B,), generator=g)
    loss, grad_v_c, grad_U = naive_softmax_loss_and_gradient(
        v_c, o, U, reduction=reduction
    )
    ref = F.cross_entropy(v_c @ U.T, o, reduction=reduction)
    torch.testing.assert_close(loss, ref.detach(), rtol=0, atol=1e-10)
    ref.sum().backward()
    torch.testing.assert_close(grad_v_c, v_c.grad, rtol=0, atol=1e-10)
    torch.testing.assert_close(grad_U, U.grad, rtol=0, atol=1e-10)
    auto = naive_softmax_loss(v_c, o, U, reduction=reduction)
    torch.testing.assert_close(auto, ref, rtol=0, atol=1e-10)


def test_naive_softmax_is_stable_for_large_scores():
    v_c = torch.tensor([[1000.0, 0.0]])
    U = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    loss, grad_v_c, grad_U = naive_softmax_loss_and_gradient(v_c, torch.tensor([1]), U)
    assert torch.isfinite(loss) and loss == 1000.0
    assert torch.isfinite(grad_v_c).all() and torch.isfinite(grad_U).all()


@pytest.mark.parametrize(
    "v_c, o, U, message",
    [
        (
            torch.zeros(4),
            torch.zeros(4, dtype=torch.long),
            torch.zeros(5, 4),
            r"v_c must be 2-D",
        ),
        (
            torch.zeros(2, 4),
            torch.zeros(3, dtype=torch.long),
            torch.zeros(5, 4),
            r"B = 2.*\(3,\)",
        ),
        (
            torch.zeros(2, 4),
            torch.zeros(2, dtype=torch.long),
            torch.zeros(5, 3),
            r"D = 4.*\(5, 3\)",
        ),
        (torch.zeros(2, 4), torch.tensor([0, 5]), torch.zeros(5, 4), r"\[0, V = 5\)"),
    ],
)
def test_naive_softmax_bad_shapes(v_c, o, U, message):
    with pytest.raises(ValueError, match=message):
        naive_softmax_loss_and_gradient(v_c, o, U)


def randomised(model, seed=0):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype))
    return model


def test_init_like_word2vec():
    torch.manual_seed(0)
    model = SkipGram(50, 10)
    assert model.V.shape == model.U.shape == (50, 10)
    assert model.V.abs().max() <= 0.05 and model.V.std() > 0 and (model.U == 0).all()
    assert model.vectors("centre").shape == (50, 10)
    torch.testing.assert_close(model.vectors("mean"), model.V.detach() / 2)
    with pytest.raises(ValueError, match="kind"):
        model.vectors("input")
    with pytest.raises(ValueError, match="dim"):
        CBOW(10, 0)


def test_skipgram_forward_matches_cross_entropy():
    model = randomised(SkipGram(12, 4, dtype=torch.float64))
    c, o = torch.tensor([0, 3, 3, 11]), torch.tensor([5, 1, 2, 0])
    ref = F.cross_entropy(model.V[c] @ model.U.T, o)
    torch.testing.assert_close(model(c, o), ref, rtol=0, atol=1e-12)
    assert model.logits(c).shape == (4, 12)


def test_cbow_forward_matches_cross_entropy():
    model = randomised(CBOW(12, 4, dtype=torch.float64))
    contexts, mask, centres = word_windows([[1, 2, 3, 4, 5], [6, 7]], 2)
    v_hat = torch.stack(
        [model.V[ctx[m]].mean(0) for ctx, m in zip(contexts, mask, strict=True)]
    )
    ref = F.cross_entropy(v_hat @ model.U.T, centres)
    torch.testing.assert_close(model(contexts, mask, centres), ref, rtol=0, atol=1e-12)
    full = torch.tensor([[1, 2]])
    torch.testing.assert_close(
        model.context_vector(full, None), model.V[[1, 2]].mean(0)[None]
    )
    with pytest.raises(ValueError, match="mask must have the shape"):
        model(contexts, mask[:, :2], centres)


def test_hand_sgd_step_equals_autograd_sgd():
    hand = randomised(SkipGram(9, 5, dtype=torch.float64), seed=3)
    auto = copy.deepcopy(hand)
    c, o = (
        torch.tensor([1, 4, 1, 8, 0]),
        torch.tensor([2, 2, 7, 3, 1]),
    )  # centre 1 repeats
    loss = hand_sgd_step(hand, c, o, lr=0.5)
    opt = torch.optim.SGD(auto.parameters(), lr=0.5)
    ref = auto(c, o)
    ref.backward()
    opt.step()
    torch.testing.assert_close(loss, ref.detach(), rtol=0, atol=1e-12)
    torch.testing.assert_close(hand.V, auto.V, rtol=0, atol=1e-12)
    torch.testing.assert_close(hand.U, auto.U, rtol=0, atol=1e-12)
    with pytest.raises(TypeError, match="SkipGram"):
        hand_sgd_step(CBOW(9, 5), c, o, lr=0.1)


def test_batches_cover_everything_once_and_are_seeded():
    x, y = torch.arange(10), torch.arange(10) * 2
    got = list(batches((x, y), 4, generator=torch.Generator().manual_seed(0)))
    assert [len(b[0]) for b in got] == [4, 4, 2]
    assert sorted(torch.cat([b[0] for b in got]).tolist()) == list(range(10))
    assert all(torch.equal(b[1], b[0] * 2) for b in got)
    again = list(batches((x, y), 4, generator=torch.Generator().manual_seed(0)))
    assert all(torch.equal(a[0], b[0]) for a, b in zip(got, again, strict=True))
    assert len(list(batches(x, 4, shuffle=False, drop_last=True))) == 2
    with pytest.raises(ValueError, match="share their first dimension"):
        next(batches((x, y[:3]), 4))


def train_skipgram(optimizer, lr, **kwargs):
    torch.manual_seed(0)
    model = SkipGram(8, 6)
    pairs = skipgram_pairs(CORPUS, 2)
    return train_word2vec(
        model,
        pairs,
        epochs=15,
        batch_size=8,
        lr=lr,
        optimizer=optimizer,
        progress=False,
        **kwargs,
    ).train_loss


@pytest.mark.parametrize("optimizer, lr", [("sgd", 1.0), ("adam", 0.05)])
def test_skipgram_training_lowers_loss_and_is_deterministic(optimizer, lr):
    history = train_skipgram(optimizer, lr)
    assert len(history) == 15
    assert history == train_skipgram(optimizer, lr)
    assert history[-1] < history[0] - 0.2


def test_training_with_hand_gradients_follows_autograd():
    hand, auto = train_skipgram("hand", 1.0), train_skipgram("sgd", 1.0)
    assert hand[-1] < hand[0] - 0.2
    for h, a in zip(hand, auto, strict=True):
        assert abs(h - a) < 1e-4


def test_cbow_training_lowers_loss():
    torch.manual_seed(0)
    model = CBOW(8, 6)
    history = train_word2vec(
        model,
        word_windows(CORPUS, 2),
        epochs=20,
        batch_size=4,
        lr=0.05,
        optimizer="adam",
        progress=False,
    ).train_loss
    assert history[-1] < history[0] - 0.5
    with pytest.raises(ValueError, match="SkipGram only"):
        train_word2vec(model, word_windows(CORPUS, 2), optimizer="hand", progress=False)


def test_skipgram_window_loss_is_the_mean_over_its_pairs():
    """One softmax a window gives the pairs' loss and gradients, to rounding error."""
    g = torch.Generator().manual_seed(0)
    sents = [torch.randint(0, 9, (int(n),), generator=g).tolist() for n in (1, 4, 7, 9)]
    contexts, mask, centres = word_windows(sents, 2)
    pairs = skipgram_pairs(sents, 2)
    assert int(mask.sum()) == len(pairs)
    by_window, by_pair = (
        SkipGram(9, 5, dtype=torch.float64),
        SkipGram(9, 5, dtype=torch.float64),
    )
    torch.nn.init.normal_(by_window.U, generator=g)
    by_pair.load_state_dict(by_window.state_dict())
    loss_w = by_window(centres, contexts, mask)
    loss_p = by_pair(pairs[:, 0], pairs[:, 1])
    loss_w.backward()
    loss_p.backward()
    assert torch.allclose(loss_w, loss_p, atol=1e-12)
    for name, p in by_window.named_parameters():
        assert torch.allclose(
            p.grad, dict(by_pair.named_parameters())[name].grad, atol=1e-12
        )


def test_skipgram_window_loss_rejects_bad_windows():
    model = SkipGram(9, 5)
    contexts, mask, centres = word_windows([[1, 2, 3]], 1)
    with pytest.raises(ValueError, match="bool mask of its shape"):
        model(centres, contexts)
    with pytest.raises(ValueError, match="bool mask of its shape"):
        model(centres, contexts, mask[:, :1])
    with pytest.raises(ValueError, match="no True entry"):
        model(centres, contexts, torch.zeros_like(mask))


def test_skipgram_trains_on_windows_and_records_each_step():
    torch.manual_seed(0)
    windows = word_windows(CORPUS, 2)
    history = train_word2vec(
        SkipGram(8, 6),
        windows,
        epochs=15,
        batch_size=4,
        lr=0.05,
        optimizer="adam",
        progress=False,
    )
    steps_per_epoch = -(-len(windows[2]) // 4)
    assert len(history.step_loss) == 15 * steps_per_epoch
    assert history.train_loss[-1] < history.train_loss[0] - 0.2
    with pytest.raises(ValueError, match="pairs only"):
        train_word2vec(SkipGram(8, 6), windows, optimizer="hand", progress=False)
    with pytest.raises(ValueError, match="word_windows"):
        train_word2vec(SkipGram(8, 6), windows[:2], progress=False)
    with pytest.raises(ValueError, match="single tensor"):
        train_word2vec(CBOW(8, 6), skipgram_pairs(CORPUS, 2), progress=False)


def test_decay_lowers_the_rate_linearly_to_zero():
    """SGD with decay equals SGD stepped by hand at lr · (1 - t / T)."""
    decayed = train_skipgram("sgd", 1.0, decay=True)
    by_hand = train_skipgram("hand", 1.0, decay=True)
    assert decayed != train_skipgram("sgd", 1.0)
    for h, a in zip(by_hand, decayed, strict=True):
        assert abs(h - a) < 1e-4
