"""Negative sampling, subsampling, reduced windows and the fast SGNS trainer (Chapter 2)."""

import copy

import pytest
import torch
import torch.nn.functional as F
from scipy.stats import chisquare

from course_lib.embeddings import skipgram_pairs
from course_lib.embeddings.negative_sampling import (
    CBOWNS,
    NoiseSampler,
    SkipGramNS,
    check_negatives,
    neg_sampling_loss,
    noise_distribution,
    sgns_loss_and_gradient,
    sgns_sgd_step,
)
from course_lib.embeddings.sgns_train import (
    SGNSConfig,
    _cbow_step,
    _Epoch,
    _sg_step,
    encode_corpus,
    train_sgns,
    vocab_counts,
)
from course_lib.embeddings.subsampling import (
    dynamic_windows,
    keep_probabilities,
    reduced_windows,
    sgns_pairs,
    subsample,
)

COUNTS = torch.tensor([400.0, 200, 100, 50, 20, 10, 5, 1, 0])


def test_noise_distribution_is_counts_to_the_three_quarters():
    p = noise_distribution(COUNTS)
    assert p.dtype == torch.float64 and p.shape == (9,)
    torch.testing.assert_close(p.sum(), torch.tensor(1.0, dtype=torch.float64))
    want = COUNTS.double() ** 0.75
    torch.testing.assert_close(p, want / want.sum(), rtol=0, atol=1e-15)
    torch.testing.assert_close(noise_distribution(COUNTS, 1.0), COUNTS.double() / 786)
    assert torch.allclose(
        noise_distribution(COUNTS, 0.0), torch.full((9,), 1 / 9).double()
    )
    # 3/4 lifts rare words above their frequency and lowers frequent ones
    unigram = noise_distribution(COUNTS, 1.0)
    assert p[0] < unigram[0] and p[7] > unigram[7]
    with pytest.raises(ValueError, match="power"):
        noise_distribution(COUNTS, 1.5)
    with pytest.raises(ValueError, match=">= 0"):
        noise_distribution(torch.tensor([1.0, -1.0]))
    with pytest.raises(ValueError, match="all zero"):
        noise_distribution(torch.zeros(3))


def test_sampler_frequencies_match_counts_to_the_three_quarters():
    sampler = NoiseSampler(COUNTS, seed=0)
    draws = sampler.sample(1000, 1000)
    assert draws.shape == (1000, 1000) and draws.dtype == torch.long
    freq = torch.bincount(draws.reshape(-1), minlength=9).double()
    assert freq[8] == 0  # a word never seen is never drawn
    p = noise_distribution(COUNTS)
    assert (freq / 1e6 - p).abs().max() < 2e-3
    assert chisquare(freq[:8].numpy(), (p[:8] * 1e6).numpy()).pvalue > 1e-3
    again = NoiseSampler(COUNTS, seed=0).sample(1000, 1000)
    assert torch.equal(draws, again)  # seeded


def test_negatives_avoid_the_positive_and_need_a_large_enough_vocabulary():
    sampler = NoiseSampler(torch.tensor([100.0, 1.0, 1.0]), seed=1)
    positives = torch.zeros(500, dtype=torch.long)
    neg = sampler.negatives(positives, 2)
    assert neg.shape == (500, 2) and (neg != 0).all()
    with pytest.raises(ValueError, match=r"3 words.*5 negatives"):
        sampler.negatives(positives, 5)
    with pytest.raises(ValueError, match=r"3 words.*5 negatives"):
        check_negatives(3, 5)
    with pytest.raises(ValueError, match="negatives must be an int >= 1"):
        check_negatives(10, 0)
    with pytest.raises(ValueError, match="only one word has a count"):
        NoiseSampler(torch.tensor([5.0, 0, 0, 0])).negatives(positives[:3], 2)


@pytest.mark.parametrize("B, K, D", [(1, 1, 2), (7, 5, 4), (16, 10, 8)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_sgns_gradients_match_autograd(B, K, D, reduction):
    g = torch.Generator().manual_seed(B * K + D)

    def leaf(*shape):
        return torch.randn(*shape, generator=g, dtype=torch.float64, requires_grad=True)

    v_c, u_o, u_neg = leaf(B, D), leaf(B, D), leaf(B, K, D)
    loss, g_v, g_o, g_neg = sgns_loss_and_gradient(v_c, u_o, u_neg, reduction=reduction)
    direct = -torch.log(torch.sigmoid((u_o * v_c).sum(1))) - torch.log(
        torch.sigmoid(-(u_neg @ v_c[:, :, None]).squeeze(2))
    ).sum(1)
    ref = neg_sampling_loss(v_c, u_o, u_neg, reduction=reduction)
    torch.testing.assert_close(
        ref,
        {"mean": direct.mean(), "sum": direct.sum()}.get(reduction, direct),
        rtol=0,
        atol=1e-10,
    )
    torch.testing.assert_close(loss, ref.detach(), rtol=0, atol=1e-10)
    ref.sum().backward()
    for mine, auto in ((g_v, v_c.grad), (g_o, u_o.grad), (g_neg, u_neg.grad)):
        torch.testing.assert_close(mine, auto, rtol=0, atol=1e-8)


def test_sgns_loss_is_stable_and_checks_shapes():
    v = torch.tensor([[100.0, 0.0]])
    loss = neg_sampling_loss(
        v, torch.tensor([[-1.0, 0.0]]), torch.tensor([[[1.0, 0.0]]])
    )
    assert torch.isfinite(loss) and loss == pytest.approx(200.0)
    with pytest.raises(ValueError, match=r"u_neg must be \(B, K, D\)"):
        neg_sampling_loss(torch.zeros(2, 3), torch.zeros(2, 3), torch.zeros(2, 3))
    with pytest.raises(ValueError, match="u_o must be"):
        sgns_loss_and_gradient(
            torch.zeros(2, 3), torch.zeros(3, 3), torch.zeros(2, 1, 3)
        )
    with pytest.raises(ValueError, match="v_c must be 2-D"):
        neg_sampling_loss(torch.zeros(3), torch.zeros(3), torch.zeros(1, 3))


def _random_model(cls, V=10, D=4, seed=0):
    model = cls(V, D, dtype=torch.float64)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype))
    return model


def test_models_and_the_hand_sgd_step_match_autograd():
    model = _random_model(SkipGramNS)
    c, o = torch.tensor([1, 4, 1, 8]), torch.tensor([2, 2, 7, 1])
    neg = torch.tensor([[3, 2], [0, 1], [5, 5], [9, 2]])
    ref = neg_sampling_loss(model.V[c], model.U[o], model.U[neg])
    torch.testing.assert_close(model(c, o, neg), ref)
    auto = copy.deepcopy(model)
    loss = sgns_sgd_step(model, c, o, neg, lr=0.3)
    opt = torch.optim.SGD(auto.parameters(), lr=0.3)
    auto(c, o, neg).backward()
    opt.step()
    torch.testing.assert_close(loss, ref.detach())
    torch.testing.assert_close(model.V, auto.V, rtol=0, atol=1e-12)
    torch.testing.assert_close(model.U, auto.U, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match=r"negatives must be in \[0, 10\)"):
        model(c, o, neg + 5)
    with pytest.raises(TypeError, match="SkipGramNS"):
        sgns_sgd_step(CBOWNS(10, 4), c, o, neg, lr=0.1)

    cbow = _random_model(CBOWNS)
    ctx = torch.tensor([[1, 2, 3, 4], [5, 6, 0, 0]])
    mask = torch.tensor([[True] * 4, [True, True, False, False]])
    v_hat = torch.stack([cbow.V[[1, 2, 3, 4]].mean(0), cbow.V[[5, 6]].mean(0)])
    want = neg_sampling_loss(
        v_hat, cbow.U[[7, 8]], cbow.U[torch.tensor([[0, 9], [1, 3]])]
    )
    got = cbow(ctx, mask, torch.tensor([7, 8]), torch.tensor([[0, 9], [1, 3]]))
    torch.testing.assert_close(got, want)


def test_keep_probabilities_are_gensims_formula():
    counts = torch.tensor([10_000.0, 1_000, 100, 10, 0])
    keep = keep_probabilities(counts, 1e-3)
    threshold = 1e-3 * float(counts.sum())
    for c, k in zip(counts[:4].tolist(), keep.tolist(), strict=False):
        want = min(1.0, ((c / threshold) ** 0.5 + 1) * threshold / c)
        assert k == pytest.approx(want, rel=1e-12)
    assert keep[0] < keep[1] < 1 and keep[3] == keep[4] == 1
    assert torch.equal(
        keep_probabilities(counts, 0), torch.ones(5, dtype=torch.float64)
    )
    with pytest.raises(ValueError, match="sample"):
        keep_probabilities(counts, 1.5)
    tokens = torch.zeros(100_000, dtype=torch.long)
    kept = subsample(tokens, keep, generator=torch.Generator().manual_seed(0))
    assert kept.float().mean().item() == pytest.approx(keep[0].item(), abs=0.01)


def test_reduced_windows_are_uniform_and_window_zero_is_an_error():
    b = reduced_windows(60_000, 5, generator=torch.Generator().manual_seed(0))
    assert b.min() == 1 and b.max() == 5
    assert (torch.bincount(b, minlength=6)[1:] / 60_000 - 0.2).abs().max() < 0.01
    with pytest.raises(ValueError, match=r"window must be an int >= 1.*got 0"):
        reduced_windows(10, 0)
    with pytest.raises(ValueError, match=r"window must be an int >= 1.*got 0"):
        sgns_pairs([[0, 1, 2]], 0)
    with pytest.raises(ValueError, match="window"):
        train_sgns([[0, 1, 2]], torch.ones(3), SGNSConfig(window=0, negatives=1))


def test_dynamic_windows_match_a_naive_loop():
    sentences = [[0, 1, 2, 3, 4, 5], [6, 7], [8], [9, 0, 1, 2]]
    tokens = torch.tensor([t for s in sentences for t in s])
    seg = torch.tensor([i for i, s in enumerate(sentences) for _ in s])
    keep = torch.tensor([1.0, 0.0, 1, 1, 1, 1, 1, 1, 1, 1])  # word 1 always dropped
    win = dynamic_windows(
        tokens, seg, 3, keep_prob=keep, generator=torch.Generator().manual_seed(3)
    )
    kept = [[t for t in s if t != 1] for s in sentences]  # the gaps close up
    assert win.centres.tolist() == [t for s in kept for t in s]
    i = 0
    for s in kept:
        for p in range(len(s)):
            b = int(win.sizes[i])
            want = {
                j: s[j] for j in range(max(0, p - b), min(len(s), p + b + 1)) if j != p
            }
            offsets = [o for o in range(-3, 4) if o != 0]
            got = {
                p + o: int(win.contexts[i, k])
                for k, o in enumerate(offsets)
                if win.mask[i, k]
            }
            assert got == want
            i += 1
    pairs = sgns_pairs(sentences, 2, reduce=False)
    assert torch.equal(
        pairs, skipgram_pairs(sentences, 2)
    )  # no subsampling, full windows
    with pytest.raises(ValueError, match="empty corpus"):
        sgns_pairs([], 2)
    with pytest.raises(ValueError, match="no sentence has 2 kept words"):
        sgns_pairs([[1], [2]], 2)


def _corpus(n_sent=60, V=30, seed=0):
    g = torch.Generator().manual_seed(seed)
    sents = []
    for _ in range(n_sent):  # two "topics": even ids and odd ids rarely mix
        parity = int(torch.randint(0, 2, (1,), generator=g))
        ids = torch.randint(0, V // 2, (12,), generator=g) * 2 + parity
        sents.append(ids.tolist())
    counts = torch.bincount(torch.tensor(sents).reshape(-1), minlength=V).double()
    return sents, counts


def test_fast_step_equals_autograd_on_the_sum_of_pair_losses():
    """One batched step = SGD on Σ over the window's pairs of J, with shared negatives."""
    sents, counts = _corpus()
    cfg = SGNSConfig(window=2, negatives=3, sample=0)
    tokens = torch.tensor([t for s in sents for t in s])
    seg = torch.tensor([i for i, s in enumerate(sents) for _ in s])
    data = _Epoch(tokens, seg, keep_probabilities(counts, 0), cfg, torch.Generator())
    chunk = data.chunk(5, 13, NoiseSampler(counts, seed=0), 3)  # C = 8 centres
    ids, valid, outs, _ = chunk.batch(0, 8)
    centres = outs[:, 0]
    outs = torch.cat(
        [centres[:, None], torch.tensor([[0, 1, 2]] * 4 + [[3, 3, 4]] * 4)], 1
    )
    outs[0, 1] = centres[0]  # a negative equal to its centre is skipped, as in gensim
    out_w = torch.ones(8, 4, dtype=torch.float64)
    out_w[:, 1:] = outs[:, 1:] != centres[:, None]
    g = torch.Generator().manual_seed(1)
    V = torch.randn(30, 6, generator=g, dtype=torch.float64)
    U = torch.randn(30, 6, generator=g, dtype=torch.float64)
    Vp, Up = V.clone().requires_grad_(), U.clone().requires_grad_()
    label = torch.tensor([[[1.0, 0, 0, 0]]], dtype=torch.float64)
    _sg_step(V, U, ids, valid.double(), outs, out_w, 0.1, label, 2 * label - 1, False)
    total = 0
    for b in range(8):  # window word w predicts centre c; negatives equal to c skipped
        c = int(centres[b])
        assert int(valid[b, 2]) == 0  # the centre's own slot (W = 2) never counts
        for slot in valid[b].nonzero()[:, 0].tolist():
            w = int(ids[b + slot])
            negs = [k for k in outs[b, 1:].tolist() if k != c]
            total = total + neg_sampling_loss(
                Vp[[w]], Up[[c]], Up[negs][None], reduction="sum"
            )
    total.backward()
    torch.testing.assert_close(V, Vp.detach() - 0.1 * Vp.grad, rtol=0, atol=1e-10)
    torch.testing.assert_close(U, Up.detach() - 0.1 * Up.grad, rtol=0, atol=1e-10)


def test_fast_cbow_step_is_gensims_cbow_update():
    """CBOW: v̂ = mean of the window; every window word moves by the whole -lr ∂J/∂v̂."""
    sents, counts = _corpus()
    cfg = SGNSConfig(architecture="cbow", window=2, negatives=2, sample=0)
    tokens = torch.tensor([t for s in sents for t in s])
    seg = torch.tensor([i for i, s in enumerate(sents) for _ in s])
    data = _Epoch(tokens, seg, keep_probabilities(counts, 0), cfg, torch.Generator())
    ids, valid, outs, out_w = data.chunk(10, 16, NoiseSampler(counts, seed=2), 2).batch(
        0, 6
    )
    out_w = out_w.double()
    g = torch.Generator().manual_seed(4)
    V = torch.randn(30, 5, generator=g, dtype=torch.float64)
    U = torch.randn(30, 5, generator=g, dtype=torch.float64)
    Vp, Up = V.clone().requires_grad_(), U.clone().requires_grad_()
    label = torch.tensor([[[1.0, 0, 0]]], dtype=torch.float64)
    _cbow_step(V, U, ids, valid.double(), outs, out_w, 0.2, label, 2 * label - 1, False)
    total, means = 0, []
    for b in range(6):
        window = [int(ids[b + s]) for s in valid[b].nonzero()[:, 0].tolist()]
        h = Vp[window].mean(0, keepdim=True)  # (1, D)
        h.retain_grad()
        means.append((window, h))
        negs = [int(k) for k, w in zip(outs[b, 1:], out_w[b, 1:]) if w]
        total = total + neg_sampling_loss(
            h, Up[outs[b, :1]], Up[negs][None], reduction="sum"
        )
    total.backward()
    want_V = V.new_zeros(V.shape).copy_(Vp.detach())
    for window, h in means:
        for w in window:
            want_V[w] -= 0.2 * h.grad[0]
    torch.testing.assert_close(U, Up.detach() - 0.2 * Up.grad, rtol=0, atol=1e-10)
    torch.testing.assert_close(V, want_V, rtol=0, atol=1e-10)


def test_train_sgns_learns_is_seeded_and_reports_throughput():
    sents, counts = _corpus()
    cfg = SGNSConfig(
        dim=8, window=2, negatives=3, epochs=3, batch_size=16, sample=0, lr=0.1
    )
    run = train_sgns(sents, counts, cfg, progress=False, log_every=5)
    again = train_sgns(sents, counts, cfg, progress=False, log_every=5)
    assert torch.equal(run.model.V, again.model.V)  # workers=1: deterministic
    losses = [h["loss"] for h in run.history]
    assert sum(losses[-3:]) < sum(losses[:3]) - 1
    assert run.effective_words == 3 * 60 * 12 and run.words_per_second > 0
    assert len(run.epochs) == 3 and run.epochs[0]["pairs"] > 0
    E = F.normalize(run.model.vectors(), dim=1)
    sim = E @ E.T  # (V, V) cosines
    parity = torch.arange(30) % 2
    same = (parity[:, None] == parity[None]) & ~torch.eye(30, dtype=torch.bool)
    assert sim[same].mean() > 0.8 > 0.3 > sim[parity[:, None] != parity[None]].mean()
    cbow = train_sgns(
        sents,
        counts,
        SGNSConfig(
            architecture="cbow",
            dim=8,
            window=2,
            negatives=3,
            epochs=2,
            batch_size=16,
            workers=2,
        ),
        progress=False,
    )
    assert isinstance(cbow.model, CBOWNS) and torch.isfinite(cbow.model.V).all()


def test_train_sgns_bad_input():
    sents, counts = _corpus()
    with pytest.raises(ValueError, match=r"30 words.*40 negatives"):
        train_sgns(sents, counts, SGNSConfig(negatives=40), progress=False)
    with pytest.raises(ValueError, match="empty corpus"):
        train_sgns([], counts, progress=False)
    with pytest.raises(ValueError, match="outside the 20 counted words"):
        train_sgns(sents, counts[:20], progress=False)
    with pytest.raises(ValueError, match="architecture"):
        SGNSConfig(architecture="glove")
    with pytest.raises(ValueError, match="min_lr"):
        SGNSConfig(lr=0.01, min_lr=0.1)
    with pytest.raises(ValueError, match="workers > 1 is for the CPU"):
        train_sgns(sents, counts, SGNSConfig(workers=2), device="meta", progress=False)


def test_encode_corpus_drops_unknown_words_and_counts_come_from_the_vocab():
    from course_lib.data import Vocab

    sents = [["a", "b", "a", "z"], ["b", "a"]]
    vocab = Vocab.build(sents, min_freq=2, specials=(), unk=None)
    assert encode_corpus(sents, vocab) == [[0, 1, 0], [1, 0]]
    assert vocab_counts(vocab).tolist() == [3.0, 2.0]
